package dev.once.sqs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.once.Consumer;
import dev.once.OnceListener;
import dev.once.test.TestDatabase;
import dev.once.testkit.LaneFaults.LaneWrites;
import dev.once.testkit.LaneFaults.Wrapped;
import org.junit.jupiter.api.Test;

/**
 * What an ordered consumer's receiver on SQS FIFO costs Once's database per batch it receives: one
 * transaction with one statement, the whole batch's lane rows in one {@code INSERT … SELECT FROM
 * unnest} on PostgreSQL, and its commit; nothing else on that connection. Counted, not timed.
 */
class LaneIngestCostOnSqsTest {
  private static final int KEYS = 8;
  private static final int STEPS = 30;

  @Test
  void oneTransactionWithOneStatementPerBatchReceived() {
    LaneWrites lane = new LaneWrites();
    try (TestDatabase db = TestDatabase.embedded();
        OrderedRig rig =
            new OrderedRig(
                db,
                true,
                new OnceListener() {},
                t -> new Wrapped(t, lane::receiving),
                lane.counting(db.dataSource()))) {
      Consumer consumer = rig.consumer(rig.once(), OrderedRig::record, OrderedRig.fast(3)).build();
      rig.closing(consumer);
      rig.publish(KEYS, 1, STEPS);
      consumer.start();
      rig.startRelay();
      rig.await("all effects", () -> rig.effects() == (long) KEYS * STEPS);
      rig.await("lane empty", () -> rig.count("SELECT count(*) FROM once_queue") == 0);
      consumer.close();

      String figures = lane.toString();
      assertThat(lane.received()).as(figures).isGreaterThanOrEqualTo((long) KEYS * STEPS);
      assertThat(lane.rows())
          .as("rows added to JDBC batches (each one a statement PostgreSQL executes)")
          .isZero();
      assertThat(lane.batchesReceived())
          .as("batches, not one by one: " + figures)
          .isLessThan(lane.received());
      assertThat(lane.transactions()).as("lane transactions").isEqualTo(lane.batchesReceived());
      assertThat(lane.commits()).as("commits").isEqualTo(lane.batchesReceived());
      assertThat(lane.statements()).as("statements prepared").isEqualTo(lane.batchesReceived());
      assertThat(lane.executions())
          .as("statements executed (one INSERT … SELECT FROM unnest per batch)")
          .isEqualTo(lane.batchesReceived());
    }
  }
}
