-- Version 2: claims are identified by (scope, tenant, operation, business key)
-- among claims, held under a fenced lease, and carry the request's digest.
ALTER TABLE writegen_claims
	ADD COLUMN scope         TEXT    NOT NULL DEFAULT '', -- the provider scope; '' for rows written before version 2
	ADD COLUMN tenant        TEXT    NOT NULL DEFAULT '', -- the provider's tenant or account; '' for one
	ADD COLUMN operation_id  TEXT    NOT NULL DEFAULT '', -- the operationId when written (informational)
	ADD COLUMN reference     TEXT    NOT NULL DEFAULT '', -- what the lookup searches for; '' = provider_key
	ADD COLUMN digest        BYTEA   NOT NULL DEFAULT '', -- SHA-256 of request; empty for rows written before version 2
	ADD COLUMN fence         BIGINT  NOT NULL DEFAULT 0,  -- incremented by every claim and takeover
	ADD COLUMN lease_owner   TEXT    NOT NULL DEFAULT '',
	ADD COLUMN lease_until   BIGINT  NOT NULL DEFAULT 0,
	ADD COLUMN redrive       BOOLEAN NOT NULL DEFAULT FALSE, -- an uncertain row Resume may drive on
	ADD COLUMN redrive_until BIGINT  NOT NULL DEFAULT 0,  -- until then; 0 = no limit
	ADD COLUMN claim         BOOLEAN NOT NULL DEFAULT TRUE;  -- FALSE for a settled row recorded without a claim
-- operation was the operationId; it is now the operation's key scope.
UPDATE writegen_claims SET operation_id = operation,
	state = CASE
		WHEN state = 'not_sent' THEN 'not_applied'
		-- Version 1 settled a person's "not applied" as rejected: the key stayed spent.
		WHEN state = 'rejected' AND last_error LIKE 'resolved by a person as not applied: %' THEN 'not_applied'
		ELSE state
	END;
ALTER TABLE writegen_claims DROP CONSTRAINT writegen_claims_operation_business_key_key;
DROP INDEX writegen_claims_state;
CREATE UNIQUE INDEX writegen_claims_identity ON writegen_claims (scope, tenant, operation, business_key) WHERE claim;
CREATE INDEX writegen_claims_state ON writegen_claims (state, scope, tenant, operation);
CREATE INDEX writegen_claims_takeover ON writegen_claims (scope, tenant, operation, lease_until) WHERE state = 'claimed';
