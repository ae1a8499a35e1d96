package dev.once;

import static org.assertj.core.api.Assertions.assertThat;

import dev.once.PoisonBatchCostTest.Cost;
import dev.once.PoisonBatchCostTest.Counter;
import dev.once.tablequeue.TableQueueTransport;
import dev.once.test.TestDatabase;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * What an event costs end to end on the table queue built on Once's own data source (the README's
 * shape), counted on the test thread, which runs every step: {@value #EVENTS} producer transactions
 * of one business row and one event each, a relay batch, and the consumer's batches of {@value
 * #BATCH}. The producer enqueues the event's queue row in its own transaction, so there is no
 * outbox row and the relay finds nothing; the same run with the queue told to leave events to the
 * relay ({@code enqueueInProducerTransaction(false)}) writes an outbox row per event, and the relay
 * claims, marks and copies them in transactions of its own. A path that brings the relay's copy
 * back fails here: the relay then finds the events and the totals grow.
 */
class TableQueueProducerEnqueueCostTest {
  private static final int EVENTS = 16;
  private static final int BATCH = 8;

  /** What the steps cost, and what they left behind. */
  record Run(Cost producers, int relayed, Cost relay, Cost consumers, long outboxRows) {}

  @Test
  void theProducerEnqueuesInItsTransactionAndTheRelayHasNothingToDo() throws Exception {
    Run run = endToEnd(true);
    assertThat(run.relayed()).as("events the relay found").isZero();
    assertThat(run.outboxRows()).as("outbox rows written").isZero();
    assertThat(run.producers())
        .as("per event: the business row, the queue row, the commit")
        .isEqualTo(new Cost(2 * EVENTS, EVENTS, 0, 0));
    assertThat(run.consumers())
        .as(
            "the first batch's claim (bounds, claim and commit in one statement); per batch:"
                + " markers, handlers, removal with the next batch's claim, commit")
        .isEqualTo(new Cost(1 + 2 * (2 + BATCH), 1 + 2, 0, 0));
  }

  @Test
  void throughTheRelayEachEventCostsAnOutboxRowAndACopy() throws Exception {
    Run direct = endToEnd(true);
    Run relayed = endToEnd(false);
    assertThat(relayed.relayed()).isEqualTo(EVENTS);
    assertThat(relayed.outboxRows()).isEqualTo(EVENTS);
    assertThat(relayed.producers()).isEqualTo(direct.producers());
    assertThat(relayed.relay().commits())
        .as("the relay's claim and mark-sent, and the queue's own enqueue commit")
        .isEqualTo(2);
    assertThat(relayed.consumers()).isEqualTo(direct.consumers());
  }

  private static Run endToEnd(boolean inProducerTransaction) throws Exception {
    try (TestDatabase db = TestDatabase.embedded()) {
      db.execute("CREATE TABLE enqueue_orders (id int PRIMARY KEY)");
      db.execute("CREATE TABLE enqueue_effects (event_id text PRIMARY KEY)");
      Counter counter = new Counter(db.dataSource());
      try (TableQueueTransport queue =
              TableQueueTransport.builder(counter.dataSource)
                  .enqueueInProducerTransaction(inProducerTransaction)
                  .build();
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
                        tx.update(
                            "INSERT INTO enqueue_effects (event_id) VALUES (?)", e.id().value()))
                .batchSize(BATCH)
                .batchLinger(Duration.ZERO)
                .idleWait(Duration.ofMillis(1))
                .build();
        Relay relay = once.newRelay();
        counter.reset();
        for (int i = 0; i < EVENTS; i++) {
          int order = i;
          once.useTransaction(
              tx -> {
                tx.update("INSERT INTO enqueue_orders (id) VALUES (?)", order);
                tx.publish(Event.of(EventId.of("o", order), "orders", "k" + order, "Paid", "{}"));
              });
        }
        Cost producers = counter.cost();
        counter.reset();
        int relayed = relay.runOnce();
        Cost relayCost = counter.cost();
        counter.reset();
        for (int i = 0; i < EVENTS / BATCH; i++) {
          assertThat(consumer.runOnce()).isEqualTo(BATCH);
        }
        Cost consumers = counter.cost();
        assertThat(db.count("SELECT count(*) FROM enqueue_effects")).isEqualTo(EVENTS);
        assertThat(db.count("SELECT count(*) FROM once_inbox")).isEqualTo(EVENTS);
        assertThat(db.count("SELECT count(*) FROM once_queue")).as("rows left").isZero();
        return new Run(
            producers, relayed, relayCost, consumers, db.count("SELECT count(*) FROM once_outbox"));
      }
    }
  }
}
