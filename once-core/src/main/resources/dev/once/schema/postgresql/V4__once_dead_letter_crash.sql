-- Once: a dead letter says whether its final attempt crashed.

-- True when the attempt that used up the last one ended without an outcome (the process died
-- or hung while handling it). The error columns then hold the last real failure recorded
-- before it, so that it groups by fingerprint with its poison siblings.
ALTER TABLE once_dead_letter ADD COLUMN final_attempt_crashed boolean NOT NULL DEFAULT false;
