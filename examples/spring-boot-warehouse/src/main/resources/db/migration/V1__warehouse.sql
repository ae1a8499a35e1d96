CREATE TABLE orders (
  id           bigint PRIMARY KEY,
  amount_cents bigint NOT NULL,
  status       text   NOT NULL
);

-- no unique constraint on event_id on purpose: exactly one job per event comes from the inbox
-- marker committing with the job, not from a constraint that would hide a second attempt
CREATE TABLE dispatch_jobs (
  id       bigserial PRIMARY KEY,
  order_id bigint NOT NULL,
  event_id text   NOT NULL
);
CREATE INDEX dispatch_jobs_event ON dispatch_jobs (event_id);
