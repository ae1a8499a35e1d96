package dev.once;

import java.sql.Connection;

/**
 * The entry point: producers write events in their own transaction, relays publish them, consumers
 * process each event once.
 *
 * <pre>{@code
 * Once once = Once.builder().dataSource(ds).transport(transport).destinations("orders").build();
 * once.useTransaction(tx -> {
 *   tx.update("insert into orders (id) values (?)", orderId);
 *   tx.publish(Event.builder().id(EventId.of("order-paid", orderId)).destination("orders")
 *       .key(orderId).payload(new OrderPaid(orderId, cents)).build());
 * });
 * }</pre>
 *
 * <p>Methods named {@code new…} create an engine that runs threads once started; call them once per
 * engine you want, not as getters.
 *
 * <p>Those threads are daemon threads: they never keep a JVM alive that the application meant to
 * end. A program with nothing else running (no web server, no framework) must wait itself — until a
 * shutdown hook, say — and then {@link #close()}, as the README's Quick start does; ending without
 * closing is a crash, which the guarantee covers (deliveries are handed out again).
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

  /** {@link #inTransaction} for work that returns nothing. */
  default void useTransaction(TxAction work) {
    inTransaction(
        tx -> {
          work.run(tx);
          return null;
        });
  }

  /**
   * A {@link Tx} over a transaction the caller manages (e.g. a framework's), to publish events in
   * it. The caller commits; relays (and the table queue's receivers, for events it took in that
   * transaction) are woken at their next poll.
   */
  Tx join(Connection connection);

  /** A new relay for this instance's outbox (not started). Run any number, in any processes. */
  Relay newRelay();

  /** A new retention janitor of this instance's schema (not started). */
  Retention newRetention();

  /** Starts describing a consumer; {@code consumerId} is the first half of its inbox key. */
  default ConsumerBuilder consumer(String consumerId) {
    return new ConsumerBuilder(consumerId, this);
  }

  /** A consumer (not started) from validated settings; {@link #consumer(String)} builds them. */
  Consumer consumer(ConsumerConfig config);

  /**
   * Starts describing the operations of one remote provider: remote actions with an idempotency key
   * stored before the first call and reused on every attempt. See {@link Operations}.
   */
  default OperationsBuilder operations(String provider) {
    return new OperationsBuilder(provider, this);
  }

  /** A provider's operations from validated settings; {@link #operations(String)} builds them. */
  Operations operations(OperationsConfig config);

  /**
   * Starts describing request keys: an HTTP client's {@code Idempotency-Key} with the response of
   * its first request, committed in that request's transaction. See {@link RequestKeys}.
   */
  default RequestKeysBuilder requestKeys() {
    return new RequestKeysBuilder(this);
  }

  /** Request keys from validated settings; {@link #requestKeys()} builds them. */
  RequestKeys requestKeys(RequestKeysConfig config);

  /** List, replay and discard dead letters of this instance's schema. */
  DeadLetters deadLetters();

  /** What is waiting now: outbox, queue, retries and dead letters, with the oldest ages. */
  WorkloadStatus status();

  OnceConfig config();

  /**
   * Stops every relay and consumer this instance started. Does not close the data source nor the
   * transport: close the transport after this (on Kafka, its consumers stay members of their groups
   * until it is closed, or until their session times out after the process ended).
   */
  @Override
  void close();
}
