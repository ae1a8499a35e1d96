package dev.once;

/**
 * Publishes committed outbox rows through the transport and marks them sent after the broker
 * confirmed them. Any number of relays, in any number of processes, may run on one outbox: rows are
 * split by key partition, each partition held by one relay for one batch transaction (on PostgreSQL
 * a transaction-scoped advisory lock, on MariaDB/MySQL a row of {@code once_relay_partition} locked
 * {@code FOR UPDATE SKIP LOCKED}), so no row is lost and events with the same key go out in order.
 * A relay that crashes after publishing and before marking sent publishes the same rows again, with
 * the same event ids.
 */
public interface Relay extends AutoCloseable {

  /** Claims one batch, publishes it and marks what was confirmed. Returns how many were marked. */
  int runOnce();

  /** Starts a background thread that runs batches until {@link #close()}. */
  Relay start();

  @Override
  void close();
}
