-- Once: the relay keeps a key's order for the destinations an ordered consumer receives from (see
-- the PostgreSQL schema's V9), and ordered consumers on the table queue.
CREATE TABLE once_ordered_destination (
    destination    VARCHAR(255) NOT NULL,
    consumer_group VARCHAR(200) NOT NULL,
    marked_at      DATETIME(6)  NOT NULL,
    PRIMARY KEY (destination, consumer_group)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

-- The outbox rows that wait for a later attempt (in backoff, parked, or with no consumer bound
-- yet), found by a range on their next attempt. MariaDB has no partial index: every row has an
-- entry, a small one (a row is written without a next attempt, and mark-sent does not change it).
CREATE INDEX once_outbox_waiting ON once_outbox (next_attempt_at);

-- An ordered consumer group claims a row only when no earlier row of its key is in the group's
-- queue: one probe here. MariaDB has no partial index (PostgreSQL's once_queue_key holds the ordered
-- groups' rows only), so every row has an entry.
CREATE INDEX once_queue_key ON once_queue (consumer_group, event_key, id);
