package dev.once.micrometer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.once.Consumer;
import dev.once.Event;
import dev.once.EventId;
import dev.once.Once;
import dev.once.ReceivedEvent;
import dev.once.RetryPolicy;
import dev.once.tablequeue.TableQueueTransport;
import dev.once.test.TestDatabase;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class MetricsTest {

  @Test
  void countersAndGaugesMatchKnownTraffic() throws Exception {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    try (TestDatabase db = TestDatabase.embedded();
        TableQueueTransport transport = TableQueueTransport.create(db.dataSource());
        Once once =
            Once.builder()
                .dataSource(db.dataSource())
                .transport(transport)
                .destinations("orders")
                .listener(new MicrometerListener(registry))
                .build();
        WorkloadGauges gauges = WorkloadGauges.bind(registry, once::status, Duration.ofHours(1))) {
      Consumer consumer =
          once.consumer("warehouse")
              .subscribe(
                  "orders",
                  (tx, e) -> {
                    if (e.key().equals("3")) {
                      throw new IllegalStateException("poison");
                    }
                  })
              .retry(RetryPolicy.builder().maxAttempts(2).backoff(ms(1), ms(1)).build())
              .idleWait(ms(50))
              .build();
      for (int i = 1; i <= 10; i++) {
        long id = i;
        once.inTransaction(
            tx ->
                tx.publish(
                    Event.of(
                        EventId.of("order-paid", id),
                        "orders",
                        Long.toString(id),
                        "OrderPaid",
                        "{}")));
      }
      // the oldest row's age grows while nothing relays it: refreshed until it shows
      await()
          .atMost(Duration.ofSeconds(10))
          .until(
              () -> {
                gauges.refresh();
                return gauge(registry, "once.outbox.oldest.age", "destination", "orders") > 0.04;
              });
      assertThat(gauge(registry, "once.outbox.pending", "destination", "orders")).isEqualTo(10);

      once.newRelay().runOnce();
      gauges.refresh();
      assertThat(gauge(registry, "once.queue.waiting", "consumer", "warehouse")).isEqualTo(10);
      while (db.count("SELECT count(*) FROM once_queue") > 0) {
        consumer.runOnce();
      }
      gauges.refresh();

      assertThat(registry.counter("once.outbox.written", "destination", "orders").count())
          .isEqualTo(10);
      assertThat(registry.counter("once.relay.published", "destination", "orders").count())
          .isEqualTo(10);
      assertThat(registry.counter("once.consumer.received", "consumer", "warehouse").count())
          .isEqualTo(11);
      assertThat(outcome(registry, "PROCESSED")).isEqualTo(9);
      assertThat(outcome(registry, "RETRY")).isEqualTo(1);
      assertThat(outcome(registry, "DEAD")).isEqualTo(1);
      assertThat(registry.find("once.relay.publish.latency").timer().count()).isEqualTo(1);
      assertThat(gauge(registry, "once.dead.letters", "consumer", "warehouse")).isEqualTo(1);
      assertThat(gauge(registry, "once.queue.waiting", "consumer", "warehouse"))
          .as("a name seen once reports 0 when it has nothing")
          .isZero();
      assertThat(gauge(registry, "once.outbox.pending", "destination", "orders")).isZero();
      assertThat(registry.getMeters())
          .allSatisfy(
              m ->
                  assertThat(m.getId().getTags())
                      .allSatisfy(t -> assertThat(t.getValue()).doesNotContain("order-paid")));
    }
  }

  /** An ordered consumer's poisoned key: one key parked, two events behind it, its age growing. */
  @Test
  void parkedKeysAreGaugedPerConsumer() {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    try (TestDatabase db = TestDatabase.local();
        TableQueueTransport transport = TableQueueTransport.create(db.dataSource());
        Once once =
            Once.builder()
                .dataSource(db.dataSource())
                .transport(transport)
                .destinations("orders")
                .build();
        WorkloadGauges gauges = WorkloadGauges.bind(registry, once::status, Duration.ofHours(1))) {
      Consumer consumer =
          once.consumer("warehouse")
              .subscribe(
                  "orders",
                  (tx, e) -> {
                    if (e.id().value().equals("order-status:3:1")) {
                      throw new IllegalStateException("poison");
                    }
                  })
              .retry(RetryPolicy.builder().maxAttempts(1).backoff(ms(1), ms(1)).build())
              .idleWait(ms(50))
              .ordered()
              .build();
      for (int step = 1; step <= 3; step++) {
        for (int order = 1; order <= 3; order++) {
          EventId id = EventId.of("order-status", order, step);
          String key = Integer.toString(order);
          once.inTransaction(tx -> tx.publish(Event.of(id, "orders", key, "OrderStatus", "{}")));
        }
      }
      once.newRelay().runOnce();
      await()
          .atMost(Duration.ofSeconds(30))
          .until(
              () -> {
                consumer.runOnce();
                return db.count("SELECT count(*) FROM once_queue") == 2
                    && db.count("SELECT count(*) FROM once_parked_key") == 1;
              });
      await()
          .atMost(Duration.ofSeconds(10))
          .until(
              () -> {
                gauges.refresh();
                return gauge(registry, "once.keys.oldest.age", "consumer", "warehouse") > 0.04;
              });

      assertThat(gauge(registry, "once.keys.parked", "consumer", "warehouse")).isEqualTo(1);
      assertThat(gauge(registry, "once.keys.waiting", "consumer", "warehouse")).isEqualTo(2);
      assertThat(gauge(registry, "once.dead.letters", "consumer", "warehouse")).isEqualTo(1);

      once.deadLetters().discardKey("warehouse", "3", "test", "cancelled");
      gauges.refresh();
      assertThat(gauge(registry, "once.keys.parked", "consumer", "warehouse")).isZero();
      assertThat(gauge(registry, "once.keys.waiting", "consumer", "warehouse")).isZero();
    }
  }

  @Test
  void aTransientRollbackIsCountedPerConsumerAndSqlState() {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    MicrometerListener listener = new MicrometerListener(registry);
    Event e = Event.of(EventId.of("order-paid", 1), "orders", "1", "OrderPaid", "{}");
    List<ReceivedEvent> batch = List.of(new ReceivedEvent("warehouse", e, 1, false));

    listener.transientRollback(batch, new SQLException("Deadlock found", "40001", 1213));
    listener.transientRollback(batch, new SQLException("Deadlock found", "40001", 1213));
    listener.transientRollback(batch, new SQLException("Lock wait timeout", "HY000", 1205));

    assertThat(rollbacks(registry, "40001")).isEqualTo(2);
    assertThat(rollbacks(registry, "HY000")).isEqualTo(1);
  }

  private static double rollbacks(SimpleMeterRegistry r, String state) {
    return r.counter("once.consumer.rollbacks", "consumer", "warehouse", "sqlstate", state).count();
  }

  private static double outcome(SimpleMeterRegistry r, String outcome) {
    return r.counter("once.consumer.outcomes", "consumer", "warehouse", "outcome", outcome).count();
  }

  private static double gauge(SimpleMeterRegistry r, String name, String tag, String value) {
    return r.get(name).tag(tag, value).gauge().value();
  }

  private static Duration ms(long n) {
    return Duration.ofMillis(n);
  }
}
