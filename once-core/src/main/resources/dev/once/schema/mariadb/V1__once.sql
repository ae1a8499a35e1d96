-- Once: every table for MariaDB 10.6+ (tested on 10.11) and MySQL 8.0+.
-- 'once schema print --db jdbc:mariadb://...' prints it. Tables are created in the
-- connection's database. Times are DATETIME(6) in UTC (Once binds UTC values itself,
-- whatever the server's or the JVM's time zone). Ids compare byte for byte
-- (utf8mb4_bin): 'A' and 'a' are two events, as on PostgreSQL. Ids are at most 200
-- characters (EventId.MAX_LENGTH), which keeps every key inside InnoDB's 3072 bytes.

-- Outgoing events, written in the producer's (or handler's) own transaction.
-- next_attempt_at = '9999-12-31' parks a row the broker kept refusing.
CREATE TABLE once_outbox (
    id              BIGINT       NOT NULL AUTO_INCREMENT PRIMARY KEY,
    event_id        VARCHAR(200) NOT NULL,
    destination     VARCHAR(255) NOT NULL,
    event_key       VARCHAR(255),
    event_type      VARCHAR(255) NOT NULL,
    payload         LONGBLOB     NOT NULL,
    headers         TEXT         NOT NULL,               -- name=value&name=value, URL-encoded
    key_partition   INT          NOT NULL,
    created_at      DATETIME(6)  NOT NULL DEFAULT (UTC_TIMESTAMP(6)),
    sent_at         DATETIME(6),
    attempts        INT          NOT NULL DEFAULT 0,
    next_attempt_at DATETIME(6),
    last_error      TEXT,
    CONSTRAINT once_outbox_event_id_key UNIQUE (event_id),
    INDEX once_outbox_pending (sent_at, id)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

-- The relay's key partitions: a relay holds a partition by locking its row
-- (SELECT ... FOR UPDATE SKIP LOCKED) for one batch transaction; the lock vanishes
-- with the transaction or its connection. One row per possible partition (0..4095).
CREATE TABLE once_relay_partition (
    partition_no INT NOT NULL PRIMARY KEY
) ENGINE = InnoDB;
INSERT INTO once_relay_partition (partition_no)
SELECT a.n + 16 * b.n + 256 * c.n
  FROM (SELECT 0 n UNION ALL SELECT 1 UNION ALL SELECT 2 UNION ALL SELECT 3 UNION ALL SELECT 4
        UNION ALL SELECT 5 UNION ALL SELECT 6 UNION ALL SELECT 7 UNION ALL SELECT 8
        UNION ALL SELECT 9 UNION ALL SELECT 10 UNION ALL SELECT 11 UNION ALL SELECT 12
        UNION ALL SELECT 13 UNION ALL SELECT 14 UNION ALL SELECT 15) a,
       (SELECT 0 n UNION ALL SELECT 1 UNION ALL SELECT 2 UNION ALL SELECT 3 UNION ALL SELECT 4
        UNION ALL SELECT 5 UNION ALL SELECT 6 UNION ALL SELECT 7 UNION ALL SELECT 8
        UNION ALL SELECT 9 UNION ALL SELECT 10 UNION ALL SELECT 11 UNION ALL SELECT 12
        UNION ALL SELECT 13 UNION ALL SELECT 14 UNION ALL SELECT 15) b,
       (SELECT 0 n UNION ALL SELECT 1 UNION ALL SELECT 2 UNION ALL SELECT 3 UNION ALL SELECT 4
        UNION ALL SELECT 5 UNION ALL SELECT 6 UNION ALL SELECT 7 UNION ALL SELECT 8
        UNION ALL SELECT 9 UNION ALL SELECT 10 UNION ALL SELECT 11 UNION ALL SELECT 12
        UNION ALL SELECT 13 UNION ALL SELECT 14 UNION ALL SELECT 15) c;

-- Inbox markers: one row per (consumer, event) processed, committed with the handler's
-- changes or not at all.
CREATE TABLE once_inbox (
    consumer_id  VARCHAR(200) NOT NULL,
    event_id     VARCHAR(200) NOT NULL,
    processed_at DATETIME(6)  NOT NULL DEFAULT (UTC_TIMESTAMP(6)),
    PRIMARY KEY (consumer_id, event_id),
    INDEX once_inbox_processed_at (processed_at)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

-- Table queue: a broker in a table. One row per (consumer group, message).
CREATE TABLE once_queue_binding (
    destination    VARCHAR(255) NOT NULL,
    consumer_group VARCHAR(200) NOT NULL,
    PRIMARY KEY (destination, consumer_group)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

CREATE TABLE once_queue (
    id             BIGINT       NOT NULL AUTO_INCREMENT PRIMARY KEY,
    consumer_group VARCHAR(200) NOT NULL,
    event_id       VARCHAR(200) NOT NULL,
    destination    VARCHAR(255) NOT NULL,
    event_key      VARCHAR(255),
    event_type     VARCHAR(255) NOT NULL,
    payload        LONGBLOB     NOT NULL,
    headers        TEXT         NOT NULL,
    enqueued_at    DATETIME(6)  NOT NULL,
    visible_at     DATETIME(6)  NOT NULL,
    delivery_count INT          NOT NULL DEFAULT 0,
    INDEX once_queue_ready (consumer_group, id)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

-- Operations: remote actions with an idempotency key, never locked across a call.
CREATE TABLE once_operation (
    operation_id     VARCHAR(200) NOT NULL PRIMARY KEY,
    provider         VARCHAR(200) NOT NULL,
    idempotency_key  VARCHAR(64)  NOT NULL,
    fingerprint      CHAR(64)     NOT NULL,
    request          MEDIUMTEXT   NOT NULL,
    state            VARCHAR(16)  NOT NULL DEFAULT 'PENDING',
    attempts         INT          NOT NULL DEFAULT 0,
    owner            VARCHAR(200),
    lease_until      DATETIME(6),
    next_attempt_at  DATETIME(6),
    created_at       DATETIME(6)  NOT NULL,
    first_attempt_at DATETIME(6),
    updated_at       DATETIME(6)  NOT NULL,
    result           MEDIUMTEXT,
    last_error       TEXT,
    resolution       TEXT,
    CONSTRAINT once_operation_key UNIQUE (idempotency_key),
    CONSTRAINT once_operation_state CHECK
        (state IN ('PENDING', 'IN_FLIGHT', 'SUCCEEDED', 'FAILED', 'UNKNOWN', 'ABANDONED')),
    INDEX once_operation_open (provider, state, created_at)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

-- Failed attempts of a consumer at an event (the retry backlog).
CREATE TABLE once_attempt (
    consumer_id       VARCHAR(200) NOT NULL,
    event_id          VARCHAR(200) NOT NULL,
    attempts          INT          NOT NULL,
    first_failed_at   DATETIME(6)  NOT NULL,
    last_failed_at    DATETIME(6)  NOT NULL,
    error_class       VARCHAR(255) NOT NULL,
    error_fingerprint VARCHAR(64)  NOT NULL,
    error_message     TEXT,
    PRIMARY KEY (consumer_id, event_id),
    INDEX once_attempt_last_failed (last_failed_at)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

-- Events whose retries are exhausted; at most one row per (consumer, event).
CREATE TABLE once_dead_letter (
    id                BIGINT       NOT NULL AUTO_INCREMENT PRIMARY KEY,
    consumer_id       VARCHAR(200) NOT NULL,
    event_id          VARCHAR(200) NOT NULL,
    destination       VARCHAR(255) NOT NULL,
    event_key         VARCHAR(255),
    event_type        VARCHAR(255) NOT NULL,
    payload           LONGBLOB     NOT NULL,
    headers           TEXT         NOT NULL,
    attempts          INT          NOT NULL,
    first_failed_at   DATETIME(6)  NOT NULL,
    last_failed_at    DATETIME(6)  NOT NULL,
    error_class       VARCHAR(255) NOT NULL,
    error_fingerprint VARCHAR(64)  NOT NULL,
    error_message     TEXT,
    final_attempt_crashed BOOLEAN  NOT NULL DEFAULT FALSE,  -- the last attempt crashed; the error is the one before
    status            VARCHAR(16)  NOT NULL DEFAULT 'dead',
    dead_at           DATETIME(6)  NOT NULL DEFAULT (UTC_TIMESTAMP(6)),
    resolved_at       DATETIME(6),
    CONSTRAINT once_dead_letter_key UNIQUE (consumer_id, event_id),
    CONSTRAINT once_dead_letter_status CHECK (status IN ('dead', 'replayed', 'discarded')),
    INDEX once_dead_letter_status_at (status, dead_at)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

-- Who did what to a dead letter, and when. Never updated, never deleted by Once.
CREATE TABLE once_dead_letter_action (
    id          BIGINT       NOT NULL AUTO_INCREMENT PRIMARY KEY,
    consumer_id VARCHAR(200) NOT NULL,
    event_id    VARCHAR(200) NOT NULL,
    action      VARCHAR(16)  NOT NULL,
    actor       VARCHAR(255) NOT NULL,
    reason      TEXT,
    acted_at    DATETIME(6)  NOT NULL DEFAULT (UTC_TIMESTAMP(6))
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

-- The newest version applied per entity, for Tx.applyIfNewer.
CREATE TABLE once_version (
    entity    VARCHAR(200) NOT NULL,
    entity_id VARCHAR(200) NOT NULL,
    version   BIGINT       NOT NULL,
    PRIMARY KEY (entity, entity_id)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

CREATE INDEX once_outbox_sent_at ON once_outbox (sent_at);
