-- Once: ordered consumers on the table queue.

-- An ordered consumer group claims a row only when it is the earliest row of its (destination,
-- key) still in the group's queue: this index answers "is there an earlier one?" with one probe.
-- Only the rows of ordered groups are in it (in_key_order, copied from the group's binding when a
-- row is enqueued): an index over every keyed row made each enqueue of an unordered group write
-- one more entry (a bulk insert of 100 000 rows took 2.4 times as long). Rows without a key are
-- not ordered and not indexed.
ALTER TABLE once_queue_binding ADD COLUMN in_key_order boolean NOT NULL DEFAULT false;
ALTER TABLE once_queue ADD COLUMN in_key_order boolean NOT NULL DEFAULT false;
CREATE INDEX once_queue_key ON once_queue (consumer_group, destination, event_key, id)
    WHERE in_key_order AND event_key IS NOT NULL;

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
