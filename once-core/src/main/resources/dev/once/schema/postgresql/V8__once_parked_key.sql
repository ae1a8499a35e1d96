-- Once: ordered consumers on the table queue.

-- An ordered consumer group claims a row only when it is the earliest row of its (destination,
-- key) still in the group's queue: this index answers "is there an earlier one?" with one probe.
-- Rows without a key are not ordered and not indexed.
CREATE INDEX once_queue_key ON once_queue (consumer_group, destination, event_key, id)
    WHERE event_key IS NOT NULL;

-- A key an ordered group parked: its head event was dead-lettered, and its later rows stay in
-- once_queue, unclaimed, until an operator replays the head (which goes back to its old place,
-- head_id, and runs first) or discards it. Written in the same statement that acknowledges the
-- head's queue row, so the key is held back by its head row or by this row, never by neither.
CREATE TABLE once_parked_key (
    consumer_group text        NOT NULL,
    destination    text        NOT NULL,
    event_key      text        NOT NULL,
    event_id       text        NOT NULL,   -- the head: the dead-lettered event
    head_id        bigint      NOT NULL,   -- its queue row's id, its place when replayed
    parked_at      timestamptz NOT NULL,
    PRIMARY KEY (consumer_group, destination, event_key)
);
CREATE INDEX once_parked_key_head ON once_parked_key (consumer_group, event_id);
