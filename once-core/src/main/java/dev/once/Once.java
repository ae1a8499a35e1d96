package dev.once;

import java.sql.Connection;

/**
 * The entry point: producers write events in their own transaction, relays publish them, consumers
 * process each event once.
 *
 * <pre>{@code
 * Once once = Once.builder().dataSource(ds).transport(transport).destinations("orders").build();
 * once.inTransaction(tx -> {
 *   tx.update("insert into orders (id) values (?)", orderId);
 *   return tx.publish(Event.of(EventId.of("order-paid", orderId), "orders", orderId, "OrderPaid", json));
 * });
 * }</pre>
 */
public interface Once extends AutoCloseable {

  static OnceBuilder builder() {
    return new OnceBuilder();
  }

  /**
   * Runs {@code work} in a new transaction and commits it: SQL through {@code tx} and events given
   * to {@code tx.publish} commit together or not at all. Any exception rolls everything back and is
   * rethrown (checked ones wrapped in {@link OnceException}).
   */
  <T> T inTransaction(TxWork<T> work);

  /**
   * A {@link Tx} over a transaction the caller manages (e.g. a framework's), to publish events in
   * it. The caller commits; relays are woken at the next poll.
   */
  Tx join(Connection connection);

  /** A relay for this instance's outbox. */
  Relay relay();

  /** The retention janitor of this instance's schema (not started). */
  Retention retention();

  /** Starts describing a consumer; {@code consumerId} is the first half of its inbox key. */
  ConsumerBuilder consumer(String consumerId);

  /**
   * Starts describing the operations of one remote provider: remote actions with an idempotency key
   * stored before the first call and reused on every attempt. See {@link Operations}.
   */
  OperationsBuilder operations(String provider);

  OnceConfig config();

  /** Stops every relay and consumer this instance started. Does not close the data source. */
  @Override
  void close();
}
