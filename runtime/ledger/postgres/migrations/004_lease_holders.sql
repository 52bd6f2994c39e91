-- Version 4: a claim names its holder's instance and incarnation, so that an instance that
-- restarts takes its own claims at once; the numbers of an instance's runs are kept in
-- writegen_instances. Lease ends are written by the database's clock (no column changes).
ALTER TABLE writegen_claims
	ADD COLUMN lease_instance    TEXT   NOT NULL DEFAULT '', -- the holder's instance; '' when it named none
	ADD COLUMN lease_incarnation BIGINT NOT NULL DEFAULT 0;  -- the holder's run of that instance
CREATE TABLE writegen_instances (
	name        TEXT   PRIMARY KEY,
	incarnation BIGINT NOT NULL, -- the number of its latest run, from 1
	started_at  BIGINT NOT NULL  -- when that run began, by the database's clock
);
