-- Once: request keys of HTTP requests (Idempotency-Key) and the responses they got.

-- A row is inserted when a request claims its key and, in the same transaction, completed with the
-- response the request's work returned; that transaction also holds the business change and the
-- outbox rows. So a committed row always has its response, and a row exists if and only if the
-- business change committed. While the claiming transaction is open, another request's insert of
-- the key would wait on its row lock: it is made with innodb_lock_wait_timeout 0 and answered 409.
-- utf8mb4_bin: keys are case-sensitive ('abc' and 'ABC' are two keys).
CREATE TABLE once_request (
    scope       VARCHAR(255) NOT NULL,
    request_key VARCHAR(255) NOT NULL,
    fingerprint CHAR(64)     NOT NULL,
    status      INT,
    headers     TEXT,
    body        MEDIUMBLOB,
    created_at  DATETIME(6)  NOT NULL,
    expires_at  DATETIME(6)  NOT NULL,
    PRIMARY KEY (scope, request_key),
    INDEX once_request_expires (expires_at)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;
