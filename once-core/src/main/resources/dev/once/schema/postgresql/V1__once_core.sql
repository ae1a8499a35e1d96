-- Once: core tables for PostgreSQL (outbox, inbox markers, table queue).
-- One file per migration; 'once schema print' prints them all, in order.
-- Tables are created in the current schema (search_path), so several Once
-- installations can live in one database under different schemas.

-- Outgoing events, written in the producer's (or handler's) own transaction.
-- The relay publishes pending rows (sent_at IS NULL) and then marks them sent.
CREATE TABLE once_outbox (
    id              bigserial   PRIMARY KEY,
    event_id        text        NOT NULL,
    destination     text        NOT NULL,
    event_key       text,
    event_type      text        NOT NULL,
    payload         bytea       NOT NULL,
    headers         text[]      NOT NULL DEFAULT '{}',  -- name, value, name, value, ...
    key_partition   int         NOT NULL,               -- hash(key) mod partitions: order is kept per partition
    created_at      timestamptz NOT NULL DEFAULT now(),
    sent_at         timestamptz,
    attempts        int         NOT NULL DEFAULT 0,     -- failed publish attempts
    next_attempt_at timestamptz,                        -- backoff after a failed publish
    last_error      text,
    CONSTRAINT once_outbox_event_id_key UNIQUE (event_id)
);
CREATE INDEX once_outbox_pending ON once_outbox (id) WHERE sent_at IS NULL;

-- Inbox markers: one row per (consumer, event) processed. The row commits in the
-- same transaction as the handler's changes, or not at all.
CREATE TABLE once_inbox (
    consumer_id  text        NOT NULL,
    event_id     text        NOT NULL,
    processed_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (consumer_id, event_id)
);
-- processed_at grows with insertion order: a BRIN index serves retention for almost nothing.
CREATE INDEX once_inbox_processed_at ON once_inbox USING brin (processed_at);

-- Table queue: a broker in a table. One row per (consumer group, message).
CREATE TABLE once_queue_binding (
    destination    text NOT NULL,
    consumer_group text NOT NULL,
    PRIMARY KEY (destination, consumer_group)
);

CREATE TABLE once_queue (
    id             bigserial   PRIMARY KEY,
    consumer_group text        NOT NULL,
    event_id       text        NOT NULL,
    destination    text        NOT NULL,
    event_key      text,
    event_type     text        NOT NULL,
    payload        bytea       NOT NULL,
    headers        text[]      NOT NULL DEFAULT '{}',
    enqueued_at    timestamptz NOT NULL,
    visible_at     timestamptz NOT NULL,            -- invisible while a receiver holds it
    delivery_count int         NOT NULL DEFAULT 0   -- durable: counts crashes too
);
CREATE INDEX once_queue_ready ON once_queue (consumer_group, id);
