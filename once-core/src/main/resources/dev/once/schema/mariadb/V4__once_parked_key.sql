-- Once: the keys an ordered consumer group parked (see the PostgreSQL schema's V8). Ordered
-- consumption runs on PostgreSQL's table queue only for now; the table is here so that replaying
-- and discarding dead letters run the same statements on both databases.
-- Whether a group's rows are held in key order (set from the consumer when it declares its
-- queue, copied onto each row it is enqueued), as on PostgreSQL, so that both run one enqueue.
ALTER TABLE once_queue_binding ADD COLUMN in_key_order BOOLEAN NOT NULL DEFAULT FALSE;
ALTER TABLE once_queue ADD COLUMN in_key_order BOOLEAN NOT NULL DEFAULT FALSE;

CREATE TABLE once_parked_key (
    consumer_group VARCHAR(200) NOT NULL,
    destination    VARCHAR(255) NOT NULL,
    event_key      VARCHAR(255) NOT NULL,
    event_id       VARCHAR(200) NOT NULL,   -- the head: the dead-lettered event
    head_id        BIGINT       NOT NULL,   -- its queue row's id, its place when replayed
    parked_at      DATETIME(6)  NOT NULL,
    PRIMARY KEY (consumer_group, destination, event_key),
    INDEX once_parked_key_head (consumer_group, event_id)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;
