-- Once: operations, remote actions with an idempotency key (payment charges, e-mails).
-- The key is stored and committed before the first call and sent on every attempt.
-- A row is never held locked across a remote call: a caller takes an operation by
-- setting state IN_FLIGHT with its owner and a lease, in a short transaction.
CREATE TABLE once_operation (
    operation_id     text        PRIMARY KEY,          -- the caller's stable identity, e.g. charge:order-814
    provider         text        NOT NULL,
    idempotency_key  text        NOT NULL,
    fingerprint      text        NOT NULL,             -- SHA-256 (hex) of the request text
    request          text        NOT NULL,             -- kept so any process can (re)send it
    state            text        NOT NULL DEFAULT 'PENDING',
    attempts         int         NOT NULL DEFAULT 0,   -- times a caller took it
    owner            text,                             -- the caller holding it while IN_FLIGHT
    lease_until      timestamptz,                      -- IN_FLIGHT past this: the caller died
    next_attempt_at  timestamptz,                      -- UNKNOWN/PENDING: when to reconcile again
    created_at       timestamptz NOT NULL,
    first_attempt_at timestamptz,                      -- the provider's key window counts from here
    updated_at       timestamptz NOT NULL,
    result           text,                             -- the provider's answer (success or refusal)
    last_error       text,                             -- the last attempt without an answer
    resolution       text,                             -- how reconciliation decided, for operators
    CONSTRAINT once_operation_key UNIQUE (idempotency_key),
    CONSTRAINT once_operation_state CHECK
        (state IN ('PENDING', 'IN_FLIGHT', 'SUCCEEDED', 'FAILED', 'UNKNOWN', 'ABANDONED'))
);
-- Open operations, for reconcilers and for operators ("what is still uncertain?").
CREATE INDEX once_operation_open ON once_operation (provider, created_at)
    WHERE state IN ('PENDING', 'IN_FLIGHT', 'UNKNOWN');
