package dev.once.sqs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.once.Consumer;
import dev.once.OnceListener;
import dev.once.spi.Delivery;
import dev.once.test.TestDatabase;
import dev.once.testkit.LaneFaults.LaneWrites;
import dev.once.testkit.LaneFaults.Passing;
import dev.once.testkit.LaneFaults.Wrapped;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * What an ordered consumer's receiver on SQS FIFO costs Once's database per batch it receives: one
 * transaction with one statement, the batch's inserts into the lane sent together (one JDBC batch
 * on PostgreSQL), and its commit; nothing else on that connection. Counted, not timed.
 */
class LaneIngestCostOnSqsTest {
  private static final int KEYS = 8;
  private static final int STEPS = 30;

  @Test
  void oneTransactionWithOneBatchedStatementPerBatchReceived() {
    LaneWrites lane = new LaneWrites();
    AtomicLong batches = new AtomicLong();
    AtomicLong received = new AtomicLong();
    try (TestDatabase db = TestDatabase.embedded();
        OrderedRig rig =
            new OrderedRig(
                db,
                true,
                new OnceListener() {},
                t ->
                    new Wrapped(
                        t,
                        r ->
                            new Passing(r) {
                              @Override
                              public List<Delivery> poll(int max, Duration wait, Duration linger)
                                  throws InterruptedException {
                                List<Delivery> got = super.poll(max, wait, linger);
                                if (!got.isEmpty()) {
                                  batches.incrementAndGet();
                                  received.addAndGet(got.size());
                                }
                                return got;
                              }
                            }),
                lane.counting(db.dataSource()))) {
      Consumer consumer = rig.consumer(rig.once(), OrderedRig::record, OrderedRig.fast(3)).build();
      rig.closing(consumer);
      rig.publish(KEYS, 1, STEPS);
      consumer.start();
      rig.startRelay();
      rig.await("all effects", () -> rig.effects() == (long) KEYS * STEPS);
      rig.await("lane empty", () -> rig.count("SELECT count(*) FROM once_queue") == 0);
      consumer.close();

      String figures = "received " + received + " in " + batches + " batches; lane: " + lane;
      assertThat(received.get()).as(figures).isGreaterThanOrEqualTo((long) KEYS * STEPS);
      assertThat(lane.rows()).as("a lane row per message received").isEqualTo(received.get());
      assertThat(batches.get())
          .as("batches, not one by one: " + figures)
          .isLessThan(received.get());
      assertThat(lane.transactions()).as("lane transactions").isEqualTo(batches.get());
      assertThat(lane.commits()).as("commits").isEqualTo(batches.get());
      assertThat(lane.statements()).as("statements prepared").isEqualTo(batches.get());
      assertThat(lane.executions()).as("statements sent (one JDBC batch)").isEqualTo(batches.get());
    }
  }
}
