-- Once: the relay keeps a key's order for the destinations an ordered consumer receives from.

-- A destination an ordered consumer group receives from, written when such a consumer is built,
-- on every transport: the relay reads it (again every few seconds) and holds a key's later outbox
-- rows of that destination back behind one in publish backoff or parked. Delete a group's row to
-- stop the hold for it, once its ordered consumers are stopped.
CREATE TABLE once_ordered_destination (
    destination    text        NOT NULL,
    consumer_group text        NOT NULL,
    marked_at      timestamptz NOT NULL,
    PRIMARY KEY (destination, consumer_group)
);

-- The unsent outbox rows that wait for a later attempt (in backoff, parked, or with no consumer
-- bound yet): "has this key an earlier row that is not due?" is one probe. A row is written without
-- a next attempt, so a producer's insert and the relay's mark-sent write no entry here.
CREATE INDEX once_outbox_waiting ON once_outbox (destination, event_key, id)
    WHERE sent_at IS NULL AND next_attempt_at IS NOT NULL;
