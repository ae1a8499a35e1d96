-- Once: operating it as a workload (retries, dead letters, versions for stale events).

-- Failed attempts of a consumer at an event, written in a short transaction of its own
-- after the handler's transaction rolled back, so the count survives the rollback.
-- A row exists while the event waits for its next attempt (the retry backlog); it is
-- removed when the event is processed or dead-lettered.
CREATE TABLE once_attempt (
    consumer_id      text        NOT NULL,
    event_id         text        NOT NULL,
    attempts         int         NOT NULL,           -- failed attempts known so far
    first_failed_at  timestamptz NOT NULL,
    last_failed_at   timestamptz NOT NULL,
    error_class      text        NOT NULL,
    error_fingerprint text       NOT NULL,           -- hash of the class and the top frames
    error_message    text,                           -- the handler's text, truncated, payload values scrubbed
    PRIMARY KEY (consumer_id, event_id)
);
CREATE INDEX once_attempt_first_failed ON once_attempt (first_failed_at);

-- Events whose retries are exhausted, kept for diagnosis and replay. consumer_id is the
-- consumer, or '(relay)' for an outbox row the broker kept refusing. At most one row per
-- (consumer, event): a redelivery after a crash between commit and ack finds it there.
-- The payload is kept for replay; every human-facing output shows it redacted.
CREATE TABLE once_dead_letter (
    id                bigserial   PRIMARY KEY,
    consumer_id       text        NOT NULL,
    event_id          text        NOT NULL,
    destination       text        NOT NULL,
    event_key         text,
    event_type        text        NOT NULL,
    payload           bytea       NOT NULL,
    headers           text[]      NOT NULL DEFAULT '{}',
    attempts          int         NOT NULL,
    first_failed_at   timestamptz NOT NULL,
    last_failed_at    timestamptz NOT NULL,
    error_class       text        NOT NULL,
    error_fingerprint text        NOT NULL,
    error_message     text,
    status            text        NOT NULL DEFAULT 'dead',  -- dead | replayed | discarded
    dead_at           timestamptz NOT NULL DEFAULT now(),
    resolved_at       timestamptz,
    CONSTRAINT once_dead_letter_key UNIQUE (consumer_id, event_id),
    CONSTRAINT once_dead_letter_status CHECK (status IN ('dead', 'replayed', 'discarded'))
);
CREATE INDEX once_dead_letter_open ON once_dead_letter (dead_at) WHERE status = 'dead';

-- Who did what to a dead letter, and when. Never updated, never deleted by Once.
CREATE TABLE once_dead_letter_action (
    id          bigserial   PRIMARY KEY,
    consumer_id text        NOT NULL,
    event_id    text        NOT NULL,
    action      text        NOT NULL,   -- replay | discard
    actor       text        NOT NULL,
    reason      text,
    acted_at    timestamptz NOT NULL DEFAULT now()
);

-- The newest version applied per entity, for Tx.applyIfNewer: an older event is STALE.
CREATE TABLE once_version (
    entity     text   NOT NULL,
    entity_id  text   NOT NULL,
    version    bigint NOT NULL,
    PRIMARY KEY (entity, entity_id)
);

-- Outbox rows in backoff or parked after the relay gave up: next_attempt_at = 'infinity'.
CREATE INDEX once_outbox_sent_at ON once_outbox (sent_at) WHERE sent_at IS NOT NULL;
