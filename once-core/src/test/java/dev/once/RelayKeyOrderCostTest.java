package dev.once;

import static org.assertj.core.api.Assertions.assertThat;

import dev.once.tablequeue.TableQueueTransport;
import dev.once.test.TestDatabase;
import dev.once.testkit.SettableClock;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * What the relay's key hold costs in round trips per relay batch (statements run plus commits on
 * Once's data source; the table queue, the broker here, is on a data source of its own). With no
 * key-ordered destination a batch costs what it cost before the hold existed ({@link HopCostTest}:
 * 2 on PostgreSQL, 6 on the standard store MariaDB runs); with one, the same, plus one read of the
 * marks when the last read is 5 s old.
 */
class RelayKeyOrderCostTest {

  @Test
  void onPostgresABatchCostsTwoRoundTripsOrderedOrNotAndTheMarksOneReadEveryFiveSeconds() {
    try (TestDatabase db = TestDatabase.embedded()) {
      assertThat(costs(db)).isEqualTo(new Costs(2, 2, 3));
    }
  }

  @Test
  void onMariaDbABatchCostsSixRoundTripsOrderedOrNotAndTheMarksOneReadEveryFiveSeconds() {
    try (TestDatabase db = TestDatabase.mariadb()) {
      assertThat(costs(db)).isEqualTo(new Costs(6, 6, 7));
    }
  }

  /**
   * Round trips of one relay batch of three events of three keys: with nothing ordered, with the
   * destination ordered, and the same when the relay reads the marks again.
   */
  record Costs(long unordered, long ordered, long orderedWithRead) {}

  private static Costs costs(TestDatabase db) {
    SettableClock clock = SettableClock.stoppedNow();
    ProducerCostTest.Counter counter = new ProducerCostTest.Counter(db.dataSource());
    try (TableQueueTransport queue = TableQueueTransport.create(db.dataSource());
        Once once =
            Once.builder()
                .dataSource(counter.dataSource)
                .transport(queue)
                .destinations("orders")
                .clock(clock)
                .build()) {
      once.consumer("warehouse").subscribe("orders", (tx, e) -> {}).build();
      long unordered = batch(once.newRelay(), once, counter, 0);
      db.execute(
          "INSERT INTO once_ordered_destination (destination, consumer_group, marked_at)"
              + " VALUES ('orders', 'elsewhere', CURRENT_TIMESTAMP)");
      Relay relay = once.newRelay(); // reads the marks when it is made: 'orders' is ordered
      long ordered = batch(relay, once, counter, 1);
      clock.advance(Duration.ofSeconds(5));
      long orderedWithRead = batch(relay, once, counter, 2);
      assertThat(db.count("SELECT count(*) FROM once_outbox WHERE sent_at IS NULL")).isZero();
      return new Costs(unordered, ordered, orderedWithRead);
    }
  }

  /**
   * Publishes three events of three keys and counts the round trips of the batch that sends them.
   */
  private static long batch(Relay relay, Once once, ProducerCostTest.Counter counter, int round) {
    once.useTransaction(
        tx -> {
          for (int k = 0; k < 3; k++) {
            tx.publish(Event.of(EventId.of("step", "k" + k, round), "orders", "k" + k, "T", "{}"));
          }
        });
    counter.reset();
    assertThat(relay.runOnce()).isEqualTo(3);
    return counter.executions.get() + counter.commits.get();
  }
}
