package dev.once.rabbitmq;

import static org.assertj.core.api.Assertions.assertThat;

import dev.once.Consumer;
import dev.once.OnceListener;
import dev.once.test.TestDatabase;
import dev.once.testkit.LaneFaults.LaneWrites;
import dev.once.testkit.LaneFaults.Wrapped;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * What the ordered consumer's receiver costs Once's database per batch it takes from RabbitMQ: one
 * transaction with one statement, the batch's inserts into the lane sent together (one JDBC batch
 * on PostgreSQL), and its commit; nothing else on that connection.
 */
class LaneIngestCostTest {
  private static final int KEYS = 8;
  private static final int STEPS = 30;
  private static String vhost;

  @BeforeAll
  static void vhost() {
    vhost = Broker.newVhost();
  }

  @AfterAll
  static void dropVhost() {
    Broker.deleteVhost(vhost);
  }

  @Test
  void oneTransactionWithOneBatchedStatementPerBatchReceived() {
    LaneWrites lane = new LaneWrites();
    try (TestDatabase db = TestDatabase.embedded();
        OrderedRig rig =
            new OrderedRig(
                db,
                vhost,
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

      assertThat(lane.received()).as("each event received once").isEqualTo((long) KEYS * STEPS);
      assertThat(lane.rows()).as("a lane row per event").isEqualTo((long) KEYS * STEPS);
      assertThat(lane.batchesReceived())
          .as("batches, not one by one")
          .isLessThan((long) KEYS * STEPS / 2);
      assertThat(lane.transactions()).as("lane transactions").isEqualTo(lane.batchesReceived());
      assertThat(lane.commits()).as("commits").isEqualTo(lane.batchesReceived());
      assertThat(lane.statements()).as("statements prepared").isEqualTo(lane.batchesReceived());
      assertThat(lane.executions())
          .as("statements sent (one JDBC batch)")
          .isEqualTo(lane.batchesReceived());
    }
  }
}
