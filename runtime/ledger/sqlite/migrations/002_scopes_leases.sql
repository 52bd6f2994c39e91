-- Version 2: claims are identified by (scope, tenant, operation, business key)
-- among claims, held under a fenced lease, and carry the request's digest.
-- SQLite cannot change a table's constraints, so the table is copied.
CREATE TABLE writegen_claims_v2 (
	id            INTEGER PRIMARY KEY AUTOINCREMENT,
	scope         TEXT    NOT NULL DEFAULT '', -- the provider scope; '' for rows written before version 2
	tenant        TEXT    NOT NULL DEFAULT '', -- the provider's tenant or account; '' for one
	operation     TEXT    NOT NULL,            -- the operation's key scope
	business_key  TEXT    NOT NULL,
	operation_id  TEXT    NOT NULL DEFAULT '', -- the operationId when written (informational)
	provider_key  TEXT    NOT NULL DEFAULT '',
	reference     TEXT    NOT NULL DEFAULT '', -- what the lookup searches for; '' = provider_key
	owner         TEXT    NOT NULL DEFAULT '',
	state         TEXT    NOT NULL,            -- claimed, active, rejected, not_applied, uncertain, compensated
	provider_id   TEXT    NOT NULL DEFAULT '', -- an attribute, never identity
	status        INTEGER NOT NULL DEFAULT 0,
	body          BLOB    NOT NULL DEFAULT x'',
	request       BLOB    NOT NULL DEFAULT x'',
	digest        BLOB    NOT NULL DEFAULT x'', -- SHA-256 of request; empty for rows written before version 2
	attempts      INTEGER NOT NULL DEFAULT 0,
	last_error    TEXT    NOT NULL DEFAULT '',
	fence         BIGINT  NOT NULL DEFAULT 0,  -- incremented by every claim and takeover
	lease_owner   TEXT    NOT NULL DEFAULT '',
	lease_until   BIGINT  NOT NULL DEFAULT 0,
	redrive       BOOLEAN NOT NULL DEFAULT FALSE, -- an uncertain row Resume may drive on
	redrive_until BIGINT  NOT NULL DEFAULT 0,  -- until then; 0 = no limit
	claim         BOOLEAN NOT NULL DEFAULT TRUE,  -- FALSE for a settled row recorded without a claim
	created_at    BIGINT  NOT NULL,
	updated_at    BIGINT  NOT NULL
);
INSERT INTO writegen_claims_v2
	(id, operation, business_key, operation_id, provider_key, owner, state, provider_id, status, body,
	 request, attempts, last_error, created_at, updated_at)
SELECT id, operation, business_key, operation, provider_key, owner,
	CASE
		WHEN state = 'not_sent' THEN 'not_applied'
		-- Version 1 settled a person's "not applied" as rejected: the key stayed spent.
		WHEN state = 'rejected' AND last_error LIKE 'resolved by a person as not applied: %' THEN 'not_applied'
		ELSE state
	END,
	provider_id, status, body, request, attempts, last_error, created_at, updated_at
FROM writegen_claims;
-- Ids are never reused: the copy continues the old table's sequence.
UPDATE sqlite_sequence SET seq = (SELECT seq FROM sqlite_sequence WHERE name = 'writegen_claims')
WHERE name = 'writegen_claims_v2';
DROP TABLE writegen_claims;
ALTER TABLE writegen_claims_v2 RENAME TO writegen_claims;
CREATE UNIQUE INDEX writegen_claims_identity ON writegen_claims (scope, tenant, operation, business_key) WHERE claim;
CREATE INDEX writegen_claims_state ON writegen_claims (state, scope, tenant, operation);
CREATE INDEX writegen_claims_takeover ON writegen_claims (scope, tenant, operation, lease_until) WHERE state = 'claimed';
