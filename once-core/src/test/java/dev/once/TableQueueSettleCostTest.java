package dev.once;

import static org.assertj.core.api.Assertions.assertThat;

import dev.once.PoisonBatchCostTest.Cost;
import dev.once.PoisonBatchCostTest.Counter;
import dev.once.tablequeue.TableQueueTransport;
import dev.once.test.TestDatabase;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * What the table queue's consumer spends on a batch of eight events when Once and the queue share
 * one data source (the embedded default), counted on the test thread: statements, commits,
 * rollbacks and savepoint calls of one {@code runOnce}, the claim included. The markers, the
 * handlers and the removal of the batch's rows commit together, so a commit of the handler's
 * transaction is a settled batch and no acknowledgement transaction follows. An unordered batch's
 * transaction also claims the next batch, in the removal's round trip, so under load a batch is one
 * transaction; an ordered consumer's claim commits on its own (its removal parks a dead-lettered
 * head's key in the same statement). A path that acknowledges in a transaction of its own again, or
 * claims each batch in a transaction of its own again, fails here.
 */
class TableQueueSettleCostTest {
  private static final int BATCH = 8;

  @Test
  void anUnorderedBatchUnderLoadIsOneTransaction() throws Exception {
    assertThat(batchCost(false))
        .as(
            "claimed by the previous batch's transaction; markers, 8 handlers, the removal of the"
                + " 8 rows with the next batch's claim in one statement, commit: 1 commit for 8"
                + " events (before: 2, the claim's bounds, claim and commit a transaction apart)")
        .isEqualTo(new Cost(10, 1, 0, 0));
  }

  @Test
  void anOrderedBatchCommitsItsClaimAndItsHandlersAndNothingElse() throws Exception {
    assertThat(batchCost(true))
        .as(
            "the claim (its bounds, the claim and its commit in one statement); markers, 8"
                + " handlers and the removal of the 8 rows, commit")
        .isEqualTo(new Cost(11, 2, 0, 0));
  }

  /** The fewest round trips of one consumer batch of {@value #BATCH}, over three batches. */
  private static Cost batchCost(boolean ordered) throws Exception {
    try (TestDatabase db = TestDatabase.embedded()) {
      db.execute("CREATE TABLE settle_effects (event_id text PRIMARY KEY)");
      Counter counter = new Counter(db.dataSource());
      try (TableQueueTransport queue = TableQueueTransport.create(counter.dataSource);
          Once once =
              Once.builder()
                  .dataSource(counter.dataSource)
                  .transport(queue)
                  .destinations("orders")
                  .build()) {
        ConsumerBuilder builder =
            once.consumer("warehouse")
                .subscribe(
                    "orders",
                    (tx, e) ->
                        tx.update(
                            "INSERT INTO settle_effects (event_id) VALUES (?)", e.id().value()))
                .batchSize(BATCH)
                .batchLinger(Duration.ZERO)
                .idleWait(Duration.ofMillis(1));
        Consumer consumer = (ordered ? builder.ordered() : builder).build();
        once.useTransaction(
            tx -> {
              for (int i = 0; i < 3 * BATCH; i++) { // distinct keys
                tx.publish(Event.of(EventId.of("o", i), "orders", "k" + i, "OrderPaid", "{}"));
              }
            });
        assertThat(once.newRelay().runOnce()).isEqualTo(3 * BATCH);
        Cost fewest = null;
        for (int i = 0; i < 3; i++) {
          counter.reset();
          assertThat(consumer.runOnce()).isEqualTo(BATCH);
          Cost cost = counter.cost();
          if (fewest == null
              || cost.statements() + cost.commits() < fewest.statements() + fewest.commits()) {
            fewest = cost;
          }
        }
        assertThat(db.count("SELECT count(*) FROM settle_effects")).isEqualTo(3 * BATCH);
        assertThat(db.count("SELECT count(*) FROM once_inbox")).isEqualTo(3 * BATCH);
        assertThat(db.count("SELECT count(*) FROM once_queue")).as("rows left").isZero();
        return fewest;
      }
    }
  }
}
