package dev.once.dashboard;

import dev.once.Consumer;
import dev.once.DeadLetters;
import dev.once.Event;
import dev.once.EventId;
import dev.once.Handler;
import dev.once.Once;
import dev.once.Relay;
import dev.once.RetryPolicy;
import dev.once.tablequeue.TableQueueTransport;
import dev.once.test.TestDatabase;
import java.time.Duration;
import java.util.function.UnaryOperator;

/** A database with the Once tables, a table queue, dead letters and a dashboard over them. */
final class Rig implements AutoCloseable {
  static final String TOKEN = "test-token-0123456789abcdef";

  final TestDatabase db = TestDatabase.embedded();
  final TableQueueTransport transport =
      TableQueueTransport.builder(db.dataSource()).visibilityTimeout(Duration.ofSeconds(2)).build();
  final DashboardListener rates = new DashboardListener();
  final Once once =
      Once.builder()
          .dataSource(db.dataSource())
          .transport(transport)
          .destinations("orders")
          .listener(rates)
          .relayIdleWait(Duration.ofMillis(50))
          .build();
  final DeadLetters deadLetters = once.deadLetters();
  final Dashboard dashboard;
  private Relay relay;

  Rig(UnaryOperator<Dashboard.Builder> settings) {
    this((rig, b) -> settings.apply(b));
  }

  /** Settings that need the rig's own parts (its transport). */
  Rig(java.util.function.BiFunction<Rig, Dashboard.Builder, Dashboard.Builder> settings) {
    dashboard =
        settings
            .apply(
                this,
                Dashboard.builder(db.dataSource(), deadLetters)
                    .port(0)
                    .token(TOKEN)
                    .listener(rates)
                    .sampleEvery(Duration.ofMillis(500)))
            .build();
    dashboard.start();
  }

  Consumer consumer(String id, int maxAttempts, Handler handler) {
    return once.consumer(id)
        .subscribe("orders", handler)
        .retry(
            RetryPolicy.builder()
                .maxAttempts(maxAttempts)
                .backoff(Duration.ofMillis(1), Duration.ofMillis(5))
                .build())
        .batchSize(16)
        .idleWait(Duration.ofMillis(50))
        .build();
  }

  void publish(long id, String payload) {
    once.inTransaction(
        tx ->
            tx.publish(
                Event.of(
                    EventId.of("order-paid", id),
                    "orders",
                    Long.toString(id),
                    "OrderPaid",
                    payload)));
  }

  /**
   * {@code n} open dead letters of consumer {@code warehouse}, straight into the table: ids 1..n,
   * every tenth of fingerprint {@code fp-b}, the others {@code fp-a}; payloads hold a secret.
   */
  void seedDeadLetters(int n) {
    db.execute(
        """
        INSERT INTO once_dead_letter
               (consumer_id, event_id, destination, event_key, event_type, payload, attempts,
                first_failed_at, last_failed_at, error_class, error_fingerprint, error_message,
                dead_at)
        SELECT 'warehouse', 'order-paid:' || g, 'orders', g::text, 'OrderPaid',
               convert_to('{"orderId":"secret-' || g || '","amount":12.5}', 'UTF8'), 5,
               now() - interval '1 hour', now() - interval '1 minute',
               'java.lang.IllegalStateException', CASE WHEN g % 10 = 0 THEN 'fp-b' ELSE 'fp-a' END,
               'cannot ship ***', now() - interval '1 hour' + g * interval '1 millisecond'
          FROM generate_series(1, N) g
        """
            .replace("generate_series(1, N)", "generate_series(1, " + n + ")"));
    db.execute("ANALYZE once_dead_letter");
  }

  void startRelay() {
    relay = once.newRelay().start();
  }

  String url() {
    return dashboard.url();
  }

  @Override
  public void close() {
    dashboard.close();
    if (relay != null) {
      relay.close();
    }
    once.close();
    transport.close();
    db.close();
  }
}
