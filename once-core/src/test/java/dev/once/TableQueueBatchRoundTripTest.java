package dev.once;

import static org.assertj.core.api.Assertions.assertThat;

import dev.once.tablequeue.TableQueueTransport;
import dev.once.test.TestDatabase;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The round trips of one table-queue consumer batch when Once and the queue share one data source
 * and Once runs its own transactions (the README's setup), counted on the test thread: statements
 * executed, and commits sent while the server held a transaction open (a {@code commit()} after a
 * statement that committed sends nothing). The batch's acknowledgement carries its transaction's
 * {@code COMMIT} in the same string, so a batch is the markers, its handlers and the
 * acknowledgement (with the next batch's claim under a backlog), plus its own claim when the queue
 * was drained. A path that commits the batch in a round trip of its own again fails here.
 */
class TableQueueBatchRoundTripTest {

  @Test
  void aDrainedQueuesBatchIsItsClaimMarkersHandlersAndAckWithTheCommit() throws Exception {
    assertThat(roundTrips(8, 3, 1))
        .as(
            "claim (settings, claim, commit: one string); markers; 3 handlers; delete and commit"
                + " in one string (before: 7, the commit on its own)")
        .isEqualTo(6);
  }

  @Test
  void aBatchUnderLoadIsMarkersHandlersAndAckWithClaimAndCommit() throws Exception {
    assertThat(roundTrips(8, 3 * 8, 3))
        .as(
            "claimed by the previous batch; markers; 8 handlers; delete, next claim and commit in"
                + " one string (before: 11, the commit on its own)")
        .isEqualTo(10);
  }

  /**
   * The fewest round trips of one {@code runOnce} over {@code batches} batches, {@code rows} events
   * in the queue at the start, batches of {@code size}.
   */
  private static long roundTrips(int size, int rows, int batches) throws Exception {
    try (TestDatabase db = TestDatabase.embedded()) {
      db.execute("CREATE TABLE trip_effects (event_id text PRIMARY KEY)");
      ProducerCostTest.Counter counter = new ProducerCostTest.Counter(db.dataSource());
      try (TableQueueTransport queue = TableQueueTransport.create(counter.dataSource);
          Once once =
              Once.builder()
                  .dataSource(counter.dataSource)
                  .transport(queue)
                  .destinations("orders")
                  .build()) {
        Consumer consumer =
            once.consumer("warehouse")
                .subscribe(
                    "orders",
                    (tx, e) ->
                        tx.update("INSERT INTO trip_effects (event_id) VALUES (?)", e.id().value()))
                .batchSize(size)
                .batchLinger(Duration.ZERO)
                .idleWait(Duration.ofMillis(1))
                .build();
        once.useTransaction(
            tx -> {
              for (int i = 0; i < rows; i++) {
                tx.publish(Event.of(EventId.of("o", i), "orders", "k" + i, "OrderPaid", "{}"));
              }
            });
        assertThat(once.newRelay().runOnce()).isEqualTo(rows);
        long fewest = Long.MAX_VALUE;
        int handled = 0;
        for (int i = 0; i < batches; i++) {
          counter.reset();
          int n = consumer.runOnce();
          assertThat(n).isEqualTo(Math.min(size, rows - handled));
          handled += n;
          fewest = Math.min(fewest, counter.executions.get() + counter.commits.get());
        }
        assertThat(db.count("SELECT count(*) FROM trip_effects")).isEqualTo(rows);
        assertThat(db.count("SELECT count(*) FROM once_inbox")).isEqualTo(rows);
        assertThat(db.count("SELECT count(*) FROM once_queue")).as("rows left").isZero();
        return fewest;
      }
    }
  }
}
