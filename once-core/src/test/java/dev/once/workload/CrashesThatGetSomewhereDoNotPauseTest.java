package dev.once.workload;

import static org.assertj.core.api.Assertions.assertThat;

import dev.once.Consumer;
import dev.once.Event;
import dev.once.EventId;
import dev.once.Once;
import dev.once.RetryPolicy;
import dev.once.tablequeue.TableQueueTransport;
import dev.once.test.LogLines;
import dev.once.test.TestDatabase;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;

/**
 * A worker whose batches keep crashing while it gets somewhere — each {@link Error} thrown by the
 * handler of a different delivery, whose attempt is then counted — is not a broken worker: it goes
 * on at once. The rule of the hardening round ("a second Error in a row pauses") made 24 such
 * crashes in a row sleep 100 ms, 200 ms, … up to 5 s each, over a minute; the broken worker that
 * rule was for ({@code BrokenWorkerPausesTest}: Errors no handler threw) still pauses.
 */
class CrashesThatGetSomewhereDoNotPauseTest {
  private static final int EVENTS = 24;

  @Test
  void everyBatchCrashingAtADifferentDeliveryDoesNotSlowTheWorkerDown() throws Exception {
    Set<String> crashed = ConcurrentHashMap.newKeySet();
    try (TestDatabase db = TestDatabase.embedded();
        LogLines log = LogLines.capture();
        TableQueueTransport transport =
            TableQueueTransport.builder(db.dataSource())
                .visibilityTimeout(Duration.ofSeconds(30))
                .build();
        Once once =
            Once.builder()
                .dataSource(db.dataSource())
                .transport(transport)
                .destinations("orders")
                .build()) {
      db.execute("CREATE TABLE effects (event_id text NOT NULL)");
      Consumer consumer =
          once.consumer("warehouse")
              .subscribe(
                  "orders",
                  (tx, e) -> {
                    if (crashed.add(e.id().value())) { // each event's first run kills its worker
                      throw new Error("simulated crash at " + e.id());
                    }
                    tx.update("INSERT INTO effects VALUES (?)", e.id().value());
                  })
              .retry(
                  RetryPolicy.builder()
                      .maxAttempts(3)
                      .backoff(Duration.ofMillis(1), Duration.ofMillis(5))
                      .build())
              .workers(1)
              .idleWait(Duration.ofMillis(50))
              .build();
      once.useTransaction(
          tx -> {
            for (int i = 0; i < EVENTS; i++) {
              tx.publish(Event.of(EventId.of("o", i), "orders", "k" + i, "OrderPaid", "{}"));
            }
          });
      assertThat(once.newRelay().runOnce()).isEqualTo(EVENTS);

      long started = System.nanoTime();
      consumer.start();
      long deadline = started + Duration.ofSeconds(60).toNanos();
      while (db.count("SELECT count(*) FROM effects") < EVENTS && System.nanoTime() < deadline) {
        Thread.sleep(20);
      }
      Duration took = Duration.ofNanos(System.nanoTime() - started);
      consumer.close();

      assertThat(db.count("SELECT count(*) FROM effects")).isEqualTo(EVENTS);
      assertThat(db.count("SELECT count(DISTINCT event_id) FROM effects")).isEqualTo(EVENTS);
      assertThat(db.count("SELECT count(*) FROM once_dead_letter")).isZero();
      assertThat(log.matching("worker crashed")).as("crashes").hasSize(EVENTS);
      assertThat(log.matching("nothing committed since its last crash")).as("pauses").isEmpty();
      // paused after each crash from the second on (100 ms doubling to 5 s) they take 90 s or
      // more; without, a second or two (17 s at a load average of 28)
      assertThat(took).as("time to process them all").isLessThan(Duration.ofSeconds(45));
    }
  }
}
