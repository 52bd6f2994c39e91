-- Version 7: settled claims are pruned past their operation's retention (Ledger.Prune), found by
-- state, scope, tenant, operation and the moment of their settle (lease_until, which Settle,
-- Resolve and Compensate set to it, by the database's clock): the state index ends with it, so
-- that a prune with nothing to remove reads nothing, however many rows the ledger keeps.
DROP INDEX writegen_claims_state;
CREATE INDEX writegen_claims_state ON writegen_claims (state, scope, tenant, operation, lease_until);
