package dev.once.jdbc;

/** What a cross-process wake-up is about; each dialect names its channels itself. */
public enum Channel {
  /** New outbox rows: relays look. */
  OUTBOX,
  /** New table-queue rows: receivers look. */
  QUEUE
}
