-- Claims: one row per logical write, identified by (operation, business key).
-- Times are microseconds since the Unix epoch, UTC.
CREATE TABLE writegen_claims (
	id           INTEGER PRIMARY KEY AUTOINCREMENT,
	operation    TEXT    NOT NULL,
	business_key TEXT    NOT NULL,
	provider_key TEXT    NOT NULL DEFAULT '',
	owner        TEXT    NOT NULL DEFAULT '',
	state        TEXT    NOT NULL,            -- claimed, active, rejected, uncertain, compensated
	provider_id  TEXT    NOT NULL DEFAULT '', -- an attribute, never identity
	status       INTEGER NOT NULL DEFAULT 0,
	body         BLOB    NOT NULL DEFAULT x'',
	request      BLOB    NOT NULL DEFAULT x'',
	attempts     INTEGER NOT NULL DEFAULT 0,
	last_error   TEXT    NOT NULL DEFAULT '',
	created_at   BIGINT  NOT NULL,
	updated_at   BIGINT  NOT NULL,
	UNIQUE (operation, business_key)
);
CREATE INDEX writegen_claims_state ON writegen_claims (state, updated_at);

-- Outbox: obligations recorded in the caller's transaction.
CREATE TABLE writegen_outbox (
	id          INTEGER PRIMARY KEY AUTOINCREMENT,
	operation   TEXT    NOT NULL,
	dedupe_key  TEXT    NOT NULL,
	payload     BLOB    NOT NULL,
	state       TEXT    NOT NULL DEFAULT 'pending', -- pending, sent, rejected, uncertain, failed
	attempts    INTEGER NOT NULL DEFAULT 0,
	last_error  TEXT    NOT NULL DEFAULT '',
	provider_id TEXT    NOT NULL DEFAULT '',
	status      INTEGER NOT NULL DEFAULT 0,
	body        BLOB    NOT NULL DEFAULT x'',
	next_at     BIGINT  NOT NULL,           -- due from
	lease_owner TEXT    NOT NULL DEFAULT '',
	lease_until BIGINT  NOT NULL DEFAULT 0,
	created_at  BIGINT  NOT NULL,
	updated_at  BIGINT  NOT NULL,
	UNIQUE (operation, dedupe_key)
);
CREATE INDEX writegen_outbox_due ON writegen_outbox (state, next_at);

-- Inbox: webhook events, one per (source, event id).
CREATE TABLE writegen_inbox (
	id          INTEGER PRIMARY KEY AUTOINCREMENT,
	source      TEXT    NOT NULL,
	event_id    TEXT    NOT NULL,
	order_key   TEXT    NOT NULL DEFAULT '',
	seq         BIGINT  NOT NULL DEFAULT 0,
	body        BLOB    NOT NULL,
	state       TEXT    NOT NULL DEFAULT 'pending', -- pending, done, skipped, failed
	attempts    INTEGER NOT NULL DEFAULT 0,
	last_error  TEXT    NOT NULL DEFAULT '',
	next_at     BIGINT  NOT NULL,
	lease_owner TEXT    NOT NULL DEFAULT '',
	lease_until BIGINT  NOT NULL DEFAULT 0,
	received_at BIGINT  NOT NULL,
	updated_at  BIGINT  NOT NULL,
	UNIQUE (source, event_id)
);
CREATE INDEX writegen_inbox_due ON writegen_inbox (source, state, next_at);
CREATE INDEX writegen_inbox_order ON writegen_inbox (source, order_key, seq);
