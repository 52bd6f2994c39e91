-- Version 3: an outbox obligation belongs to a provider scope and a tenant, as a claim does, so
-- that the same operation and dedupe key of two tenants are two obligations, not one.
ALTER TABLE writegen_outbox
	ADD COLUMN scope  TEXT NOT NULL DEFAULT '', -- the provider scope; '' for items written before version 3
	ADD COLUMN tenant TEXT NOT NULL DEFAULT ''; -- the provider's tenant or account; '' for one
ALTER TABLE writegen_outbox DROP CONSTRAINT writegen_outbox_operation_dedupe_key_key;
ALTER TABLE writegen_outbox ADD CONSTRAINT writegen_outbox_identity UNIQUE (scope, tenant, operation, dedupe_key);
