-- Once: request keys of HTTP requests (Idempotency-Key) and the responses they got.

-- A row is inserted when a request claims its key and, in the same transaction, completed with the
-- response the request's work returned; that transaction also holds the business change and the
-- outbox rows. So a committed row always has its response, and a row exists if and only if the
-- business change committed. While the claiming transaction is open, other requests with the key
-- find it held (a transaction-scoped advisory lock on the key) and are answered 409.
CREATE TABLE once_request (
    scope       text        NOT NULL,   -- the client: a principal, an API client id
    request_key text        NOT NULL,   -- the client's Idempotency-Key, 1 to 255 printable ASCII
    fingerprint text        NOT NULL,   -- SHA-256 of method, path, chosen headers and body
    status      int,                    -- the stored response's HTTP status
    headers     text,                   -- its chosen headers, one 'name: value' per line
    body        bytea,                  -- its body, capped (requestKeys.maxResponseBytes)
    created_at  timestamptz NOT NULL,
    expires_at  timestamptz NOT NULL,   -- kept until then; deleted after by deleteExpired()
    PRIMARY KEY (scope, request_key)
);
CREATE INDEX once_request_expires ON once_request (expires_at);
