package dev.once;

import static org.assertj.core.api.Assertions.assertThat;

import dev.once.jdbc.Dialects;
import dev.once.tablequeue.TableQueueTransport;
import dev.once.test.TestDatabase;
import org.junit.jupiter.api.Test;

/**
 * What an ordered consumer costs the table queue, counted on the queue's own data source: its claim
 * (with the head-of-key and parked-key conditions) and its ack (which parks a dead-lettered head's
 * key in the same statement) are one statement each, as an unordered consumer's are, and the claim
 * goes with its settings and its commit in one round trip; the engine's side of a hop is the same
 * code (HopCostTest).
 */
class OrderedQueueCostTest {

  @Test
  void anOrderedBatchCostsTheQueueTheRoundTripsOfAnUnorderedOne() throws Exception {
    long unordered = queueRoundTrips(false, 1);
    long ordered = queueRoundTrips(true, 1);
    assertThat(unordered)
        .as(
            "claim (bounds, claim and commit: one string, one round trip; before: 3), ack"
                + " (bounds, ack, commit)")
        .isEqualTo(4);
    assertThat(ordered).isEqualTo(unordered);
    assertThat(queueRoundTrips(true, 8)).as("a batch of 8 keys").isEqualTo(unordered);
  }

  /** The fewest round trips to the queue's data source of one consumer batch of {@code size}. */
  private static long queueRoundTrips(boolean ordered, int size) throws Exception {
    try (TestDatabase db = TestDatabase.embedded()) {
      db.execute("CREATE TABLE cost_effects (event_id text PRIMARY KEY)");
      ProducerCostTest.Counter counter = new ProducerCostTest.Counter(db.dataSource());
      try (TableQueueTransport queue =
              TableQueueTransport.builder(counter.dataSource)
                  .dialect(Dialects.postgresql())
                  .build();
          Once once =
              Once.builder()
                  .dataSource(db.dataSource())
                  .transport(queue)
                  .destinations("orders")
                  .build()) {
        ConsumerBuilder builder =
            once.consumer("warehouse")
                .subscribe(
                    "orders",
                    (tx, e) ->
                        tx.update("INSERT INTO cost_effects (event_id) VALUES (?)", e.id().value()))
                .batchSize(size);
        Consumer consumer = (ordered ? builder.ordered() : builder).build();
        once.useTransaction(
            tx -> {
              for (int i = 0; i < 3 * size; i++) { // distinct keys
                tx.publish(Event.of(EventId.of("order-paid", i), "orders", "k" + i, "T", "{}"));
              }
            });
        assertThat(once.newRelay().runOnce()).isEqualTo(3 * size);
        long fewest = Long.MAX_VALUE;
        for (int i = 0; i < 3; i++) {
          counter.reset();
          assertThat(consumer.runOnce()).isEqualTo(size);
          fewest = Math.min(fewest, counter.executions.get() + counter.commits.get());
        }
        assertThat(db.count("SELECT count(*) FROM cost_effects")).isEqualTo(3 * size);
        assertThat(db.count("SELECT count(*) FROM once_queue")).isZero();
        return fewest;
      }
    }
  }
}
