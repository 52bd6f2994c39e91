-- Version 3: an outbox obligation belongs to a provider scope and a tenant, as a claim does, so
-- that the same operation and dedupe key of two tenants are two obligations, not one.
-- SQLite cannot change a table's constraints, so the table is copied.
CREATE TABLE writegen_outbox_v3 (
	id          INTEGER PRIMARY KEY AUTOINCREMENT,
	scope       TEXT    NOT NULL DEFAULT '', -- the provider scope; '' for items written before version 3
	tenant      TEXT    NOT NULL DEFAULT '', -- the provider's tenant or account; '' for one
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
	UNIQUE (scope, tenant, operation, dedupe_key)
);
INSERT INTO writegen_outbox_v3
	(id, operation, dedupe_key, payload, state, attempts, last_error, provider_id, status, body,
	 next_at, lease_owner, lease_until, created_at, updated_at)
SELECT id, operation, dedupe_key, payload, state, attempts, last_error, provider_id, status, body,
	next_at, lease_owner, lease_until, created_at, updated_at
FROM writegen_outbox;
-- Ids are never reused: the copy continues the old table's sequence, even when it is empty.
DELETE FROM sqlite_sequence WHERE name = 'writegen_outbox_v3';
INSERT INTO sqlite_sequence (name, seq) SELECT 'writegen_outbox_v3', seq FROM sqlite_sequence WHERE name = 'writegen_outbox';
DROP TABLE writegen_outbox;
ALTER TABLE writegen_outbox_v3 RENAME TO writegen_outbox;
CREATE INDEX writegen_outbox_due ON writegen_outbox (state, next_at);
