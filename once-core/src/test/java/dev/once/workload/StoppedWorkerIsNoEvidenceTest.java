package dev.once.workload;

import static org.assertj.core.api.Assertions.assertThat;

import dev.once.Consumer;
import dev.once.Event;
import dev.once.EventId;
import dev.once.Handler;
import dev.once.Once;
import dev.once.tablequeue.TableQueueTransport;
import dev.once.test.LogLines;
import dev.once.test.TestDatabase;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A worker stopped cleanly ({@code Consumer.close()}) in the middle of a batch on the table queue:
 * its handler is interrupted (the stop interrupts the worker), and the batch goes back unfinished,
 * rolled back, handed back unrun. That is no evidence against any delivery of it: the next process
 * runs them as a fresh batch, none charged an attempt, none suspected of a crash, none run alone —
 * and each has exactly one effect.
 */
class StoppedWorkerIsNoEvidenceTest {
  private static final int EVENTS = 64;

  @Test
  void theDeliveriesOfAWorkerStoppedMidBatchAreNotChargedNorSuspected() throws Exception {
    CountDownLatch inTheMiddle = new CountDownLatch(1);
    CountDownLatch never = new CountDownLatch(1);
    AtomicInteger runs = new AtomicInteger();
    try (TestDatabase db = TestDatabase.embedded();
        LogLines log = LogLines.capture()) {
      db.execute("CREATE TABLE effects (event_id text NOT NULL)");
      Handler effect = (tx, e) -> tx.update("INSERT INTO effects VALUES (?)", e.id().value());
      try (TableQueueTransport transport = transport(db);
          Once once = once(db, transport)) {
        Consumer stopping =
            consumer(
                once,
                (tx, e) -> {
                  if (runs.incrementAndGet() == 10) { // the 10th of the first batch of 32
                    inTheMiddle.countDown();
                    never.await(); // until the stop interrupts it
                  }
                  effect.handle(tx, e);
                });
        once.useTransaction(
            tx -> {
              for (int i = 0; i < EVENTS; i++) {
                tx.publish(Event.of(EventId.of("o", i), "orders", "k" + i, "OrderPaid", "{}"));
              }
            });
        assertThat(once.newRelay().runOnce()).isEqualTo(EVENTS);
        stopping.start();
        assertThat(inTheMiddle.await(60, TimeUnit.SECONDS)).as("reached the middle").isTrue();
        stopping.close();
      }
      long effectsAtStop = db.count("SELECT count(*) FROM effects");
      long attemptsAfterStop = db.count("SELECT count(*) FROM once_attempt");
      long suspectsAfterStop = db.count("SELECT count(*) FROM once_suspect");

      try (TableQueueTransport transport = transport(db);
          Once once = once(db, transport);
          Consumer next = consumer(once, effect).start()) {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (db.count("SELECT count(*) FROM effects") < EVENTS && System.nanoTime() < deadline) {
          Thread.sleep(20);
        }
      }
      System.out.printf(
          "STOPPED WORKER: after the stop %d effects, %d attempt rows, %d suspect rows; the next process: %d"
              + " groups of suspects, %d run alone%n",
          effectsAtStop,
          attemptsAfterStop,
          suspectsAfterStop,
          log.matching("came back redelivered for no cause").size(),
          log.matching("it runs alone").size());
      assertThat(db.count("SELECT count(*) FROM effects")).isEqualTo(EVENTS);
      assertThat(db.count("SELECT count(DISTINCT event_id) FROM effects")).isEqualTo(EVENTS);
      assertThat(attemptsAfterStop).as("attempts charged by the stop").isZero();
      assertThat(suspectsAfterStop).as("suspects raised by the stop").isZero();
      assertThat(log.matching("came back redelivered for no cause"))
          .as("groups of suspects after the stop")
          .isEmpty();
      assertThat(log.matching("it runs alone")).as("deliveries run alone").isEmpty();
      assertThat(db.count("SELECT count(*) FROM once_attempt")).isZero();
      assertThat(db.count("SELECT count(*) FROM once_suspect")).isZero();
      assertThat(db.count("SELECT count(*) FROM once_dead_letter")).isZero();
    }
  }

  private static TableQueueTransport transport(TestDatabase db) {
    // a long visibility timeout: nothing comes back because a claim ran out
    return TableQueueTransport.builder(db.dataSource())
        .visibilityTimeout(Duration.ofSeconds(60))
        .build();
  }

  private static Once once(TestDatabase db, TableQueueTransport transport) {
    return Once.builder()
        .dataSource(db.dataSource())
        .transport(transport)
        .destinations("orders")
        .build();
  }

  private static Consumer consumer(Once once, Handler handler) {
    return once.consumer("warehouse")
        .subscribe("orders", handler)
        .batchSize(32)
        .workers(1)
        .idleWait(Duration.ofMillis(100))
        .build();
  }
}
