-- Version 5: a row handed over (TakeOver, TakeOverRow) tells its taker how long the previous
-- holder's lease still had to run, by the database's clock (lease_left, negative when it had
-- ended); Settle sets lease_until to the moment of the settle, by the database's clock, since a
-- settled row's lease means nothing after it (rows settled before version 5 keep the end of
-- their last lease, which is no earlier than their settle). redrives counts the times an
-- uncertain row was handed over, and redrive_at delays a re-drivable row (Settlement.RedriveAfter)
-- by the database's clock; 0 is due at once.
ALTER TABLE writegen_claims ADD COLUMN lease_left BIGINT NOT NULL DEFAULT 0; -- microseconds
ALTER TABLE writegen_claims ADD COLUMN redrives   BIGINT NOT NULL DEFAULT 0;
ALTER TABLE writegen_claims ADD COLUMN redrive_at BIGINT NOT NULL DEFAULT 0;
