-- Once: the relay keeps a key's order for the destinations an ordered consumer receives from (see
-- the PostgreSQL schema's V9).
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
