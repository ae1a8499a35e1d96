package dev.once;

import static org.assertj.core.api.Assertions.assertThat;

import dev.once.tablequeue.TableQueueTransport;
import dev.once.test.TestDatabase;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * The rows a batch's transaction claimed ahead (after a full batch of an unordered group) are the
 * next poll's as soon as that transaction committed, even when the consumer crashes after the
 * commit (here in its listener, as the faults bench crashes it): they are handed out, or released
 * when the receiver closes, never left claimed until their visibility timeout (an hour here) runs
 * out. Before: the crash left them claimed, and the second batch did not come.
 */
class ClaimAheadTest {
  /** A crash of the consumer's worker. */
  private static final class Crash extends Error {}

  private static final int BATCH = 8;

  @Test
  void rowsClaimedAheadComeBackAtOnceWhenTheConsumerFailsAfterTheCommit() throws Exception {
    try (TestDatabase db = TestDatabase.embedded()) {
      db.execute("CREATE TABLE ahead_effects (event_id text PRIMARY KEY)");
      AtomicBoolean fail = new AtomicBoolean(true);
      OnceListener failsOnce =
          new OnceListener() {
            @Override
            public void committed(List<ReceivedEvent> events) {
              if (fail.getAndSet(false)) {
                throw new Crash(); // an Error: a listener's exception is only logged
              }
            }
          };
      try (TableQueueTransport queue =
              TableQueueTransport.builder(db.dataSource())
                  .visibilityTimeout(Duration.ofHours(1))
                  .build();
          Once once =
              Once.builder()
                  .dataSource(db.dataSource())
                  .transport(queue)
                  .destinations("orders")
                  .listener(failsOnce)
                  .build()) {
        Consumer consumer =
            once.consumer("warehouse")
                .subscribe(
                    "orders",
                    (tx, e) ->
                        tx.update(
                            "INSERT INTO ahead_effects (event_id) VALUES (?)", e.id().value()))
                .batchSize(BATCH)
                .batchLinger(Duration.ZERO)
                .idleWait(Duration.ofMillis(1))
                .build();
        once.useTransaction(
            tx -> {
              for (int i = 0; i < 2 * BATCH; i++) {
                tx.publish(Event.of(EventId.of("o", i), "orders", "k" + i, "Paid", "{}"));
              }
            });
        assertThat(once.newRelay().runOnce()).isEqualTo(2 * BATCH);
        try {
          consumer.runOnce(); // the first batch commits, with the second one's claim
        } catch (Crash expected) {
          // the worker's crash after the commit
        }
        assertThat(fail).isFalse();
        assertThat(db.count("SELECT count(*) FROM ahead_effects")).isEqualTo(BATCH);
        assertThat(consumer.runOnce()).as("the second batch, claimed ahead").isEqualTo(BATCH);
        assertThat(db.count("SELECT count(*) FROM ahead_effects")).isEqualTo(2 * BATCH);
        assertThat(db.count("SELECT count(*) FROM once_queue")).as("rows left").isZero();
      }
    }
  }
}
