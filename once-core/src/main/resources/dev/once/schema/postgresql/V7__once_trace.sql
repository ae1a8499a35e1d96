-- Once: a message's W3C trace context in a column of its own.

-- A well-formed version-00 traceparent (00-<trace id>-<span id>-<flags>) packed in 26 bytes:
-- version, trace id, parent span id, flags. It was an element of the text[] headers, ~84 bytes
-- more in each row (four rows an order over two hops) and an array to encode and parse on every
-- write and read. Rows written before this migration keep it in their headers; both are read.
-- NULL when the message has none (tracing off, no current span). No index: nothing searches it.
ALTER TABLE once_outbox ADD COLUMN trace bytea;
ALTER TABLE once_queue ADD COLUMN trace bytea;
ALTER TABLE once_dead_letter ADD COLUMN trace bytea;
