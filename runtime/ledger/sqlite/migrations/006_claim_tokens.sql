-- Version 6: a claim carries a token of the call that made it, until it is settled, so that a
-- caller that could not tell whether its claim was recorded (a commit whose answer was lost)
-- recognises its own claim when it claims again.
ALTER TABLE writegen_claims ADD COLUMN claim_token TEXT NOT NULL DEFAULT '';
