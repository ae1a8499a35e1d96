package dev.once;

import static org.assertj.core.api.Assertions.assertThat;

import dev.once.PoisonBatchCostTest.Counter;
import dev.once.tablequeue.TableQueueTransport;
import dev.once.test.TestDatabase;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * What the table queue's consumer commits per event under a steady producer: each event's handler
 * sees the next order commit (on another thread, as a producer's would) while its batch runs, so
 * every batch but the last is not full and yet has a row waiting behind it. The batch's transaction
 * claims that row in its removal's round trip, since no claim began after the producer's signal:
 * one commit per batch, plus the first claim's. Before, a batch that was not full never claimed
 * ahead (the queue was taken as drained) and every event cost a claim's transaction and its
 * batch's: 2 commits per event.
 */
class TableQueueSteadyProducerCostTest {
  private static final int EVENTS = 6;

  @Test
  void aBatchThatSawAnotherCommitClaimsItInItsOwnTransaction() throws Exception {
    try (TestDatabase db = TestDatabase.embedded()) {
      db.execute("CREATE TABLE steady_effects (event_id text PRIMARY KEY)");
      Counter counter = new Counter(db.dataSource());
      try (TableQueueTransport queue =
              TableQueueTransport.builder(counter.dataSource)
                  .enqueueInProducerTransaction(true)
                  .build();
          Once once =
              Once.builder()
                  .dataSource(counter.dataSource)
                  .transport(queue)
                  .destinations("orders")
                  .build()) {
        AtomicInteger next = new AtomicInteger(1);
        Consumer consumer =
            once.consumer("warehouse")
                .subscribe(
                    "orders",
                    (tx, e) -> {
                      tx.update("INSERT INTO steady_effects (event_id) VALUES (?)", e.id().value());
                      int order = next.getAndIncrement();
                      if (order < EVENTS) {
                        Thread producer = new Thread(() -> publish(once, order));
                        producer.start();
                        producer.join(); // committed, and its signal sent, before this batch's ack
                      }
                    })
                .batchSize(8)
                .batchLinger(Duration.ZERO)
                .idleWait(Duration.ofMillis(1))
                .build();
        publish(once, 0);
        counter.reset();
        int handled = 0;
        for (int polls = 0; handled < EVENTS && polls < 10 * EVENTS; polls++) {
          handled += consumer.runOnce();
        }
        assertThat(handled).isEqualTo(EVENTS);
        assertThat(counter.cost().commits())
            .as(
                "the first claim, then one transaction per batch (markers, handler, removal with"
                    + " the next row's claim, commit); before: a claim's and a batch's per event,"
                    + " %d",
                2 * EVENTS)
            .isEqualTo(EVENTS + 1);
        assertThat(db.count("SELECT count(*) FROM steady_effects")).isEqualTo(EVENTS);
        assertThat(db.count("SELECT count(*) FROM once_queue")).as("rows left").isZero();
      }
    }
  }

  private static void publish(Once once, int order) {
    once.useTransaction(
        tx -> tx.publish(Event.of(EventId.of("o", order), "orders", "k" + order, "Paid", "{}")));
  }
}
