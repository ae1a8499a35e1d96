package dev.once.rabbitmq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.once.Consumer;
import dev.once.Event;
import dev.once.EventId;
import dev.once.Once;
import dev.once.OnceListener;
import dev.once.RetryPolicy;
import dev.once.test.TestDatabase;
import java.time.Duration;
import java.util.function.IntPredicate;
import java.util.function.LongPredicate;
import java.util.function.LongSupplier;

/**
 * Events flowing producer → outbox → relay → RabbitMQ → consumer (4 workers) into an effects table
 * without a unique constraint, so a doubled effect shows as an extra row.
 */
final class Flow implements AutoCloseable {
  static final String DESTINATION = "orders";
  private final TestDatabase db;
  private final RabbitTransport transport;
  private final Once once;
  private final Consumer consumer;

  Flow(TestDatabase db, RabbitTransport transport, OnceListener listener, String... destinations) {
    this(db, transport, listener, b -> b, destinations);
  }

  /** {@code settings} changes the builder's settings after the flow's own. */
  Flow(
      TestDatabase db,
      RabbitTransport transport,
      OnceListener listener,
      java.util.function.UnaryOperator<dev.once.OnceBuilder> settings,
      String... destinations) {
    this.db = db;
    this.transport = transport;
    db.execute("CREATE TABLE effects (event_id text NOT NULL)");
    this.once =
        settings
            .apply(
                Once.builder()
                    .dataSource(db.dataSource())
                    .transport(transport)
                    .destinations(
                        destinations.length == 0 ? new String[] {DESTINATION} : destinations)
                    .listener(listener)
                    .relayIdleWait(Duration.ofMillis(200))
                    .relayRetry(
                        RetryPolicy.builder()
                            .backoff(Duration.ofMillis(500), Duration.ofMinutes(5))
                            .build())
                    .confirmTimeout(Duration.ofSeconds(5)))
            .build();
    this.consumer =
        once.consumer("warehouse")
            .subscribe(
                DESTINATION, (tx, e) -> tx.update("INSERT INTO effects VALUES (?)", e.id().value()))
            .workers(4)
            .idleWait(Duration.ofMillis(200))
            .build();
  }

  Flow start() {
    consumer.start();
    once.newRelay().start();
    return this;
  }

  /** Starts the consumer only: the test runs the relay itself, a batch at a time. */
  Flow startConsumer() {
    consumer.start();
    return this;
  }

  Once once() {
    return once;
  }

  /** Writes {@code n} events, 50 per producer transaction, keys spread over 100. */
  void produce(String destination, int n) {
    produce(destination, n, 0);
  }

  /** Writes the events numbered {@code from} (included) to {@code to} (excluded). */
  void produceRange(String destination, int from, int to) {
    produce(destination, from, to, 0);
  }

  private void produce(String destination, int n, long pauseMillis) {
    produce(destination, 0, n, pauseMillis);
  }

  private void produce(String destination, int first, int n, long pauseMillis) {
    for (int from = first; from < n; from += 50) {
      pause(pauseMillis);
      int start = from;
      once.inTransaction(
          tx -> {
            for (int i = start; i < Math.min(n, start + 50); i++) {
              tx.publish(
                  Event.of(
                      EventId.of(destination, i), destination, "k" + (i % 100), "Order", "{}"));
            }
            return null;
          });
    }
  }

  private static void pause(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Produces in the background, paced (≥ 4 s for 5 000) so that faults land mid-flow. */
  Thread produceInBackground(int n) {
    return produceInBackground(0, n);
  }

  /** Writes the events numbered {@code from} (included) to {@code to} (excluded), paced. */
  Thread produceInBackground(int from, int to) {
    Thread t = new Thread(() -> produce(DESTINATION, from, to, 40), "producer");
    t.start();
    return t;
  }

  long effects() {
    return db.count("SELECT count(*) FROM effects");
  }

  /** Waits (at most {@code max}) until the effects count satisfies {@code until}. */
  void awaitEffects(IntPredicate until, Duration max) throws InterruptedException {
    try {
      await()
          .atMost(max)
          .pollInterval(Duration.ofMillis(100))
          .until(() -> until.test((int) effects()));
    } catch (org.awaitility.core.ConditionTimeoutException e) {
      // the caller asserts what it needs on what came
    }
  }

  /** Waits (at most {@code max}) until the unsent outbox rows satisfy {@code until}. */
  void awaitPending(LongPredicate until, Duration max) {
    await().atMost(max).pollInterval(Duration.ofMillis(50)).until(() -> until.test(pending()));
  }

  /** Waits until every one of {@code n} events is processed, then checks the data. */
  void assertEachProcessedOnce(int n, Duration max) throws InterruptedException {
    String queue = transport.queueName(DESTINATION, "warehouse");
    String vhost = Broker.vhostOf(transport);
    assertEachProcessedOnce(n, max, () -> Broker.messagesUnsettled(vhost, queue));
  }

  /**
   * As {@link #assertEachProcessedOnce(int, Duration)}, where {@code unsettled} counts the messages
   * of the consumer's queue not acknowledged yet (on a broker other than the shared one).
   */
  void assertEachProcessedOnce(int n, Duration max, LongSupplier unsettled)
      throws InterruptedException {
    try {
      await()
          .atMost(max)
          .pollInterval(Duration.ofMillis(200))
          .until(
              () ->
                  db.count("SELECT count(DISTINCT event_id) FROM effects") >= n && pending() == 0);
    } catch (org.awaitility.core.ConditionTimeoutException e) {
      // the assertions below tell what is missing
    }
    // late redeliveries land before the count: nothing is left unacknowledged in the queue, so
    // nothing can come again, and a doubled effect would show now
    await()
        .atMost(max)
        .pollInterval(Duration.ofMillis(200))
        .until(() -> unsettled.getAsLong() == 0);
    assertThat(pending()).as("outbox rows not sent").isZero();
    assertThat(db.count("SELECT count(DISTINCT event_id) FROM effects")).as("events").isEqualTo(n);
    assertThat(effects()).as("effects (a double would show here)").isEqualTo(n);
    assertThat(db.count("SELECT count(*) FROM once_inbox")).as("markers").isEqualTo(n);
  }

  long pending() {
    return db.count(
        "SELECT count(*) FROM once_outbox WHERE sent_at IS NULL AND destination = '"
            + DESTINATION
            + "'");
  }

  @Override
  public void close() {
    consumer.close();
    once.close();
  }
}
