package dev.once.rabbitmq;

import static org.assertj.core.api.Assertions.assertThat;

import dev.once.Consumer;
import dev.once.OnceListener;
import dev.once.spi.Delivery;
import dev.once.spi.Receiver;
import dev.once.test.TestDatabase;
import dev.once.testkit.LaneFaults.LaneWrites;
import dev.once.testkit.LaneFaults.Passing;
import dev.once.testkit.LaneFaults.Wrapped;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * What the ordered consumer's receiver costs Once's database per batch it takes from RabbitMQ: one
 * transaction with one statement, the whole batch's lane rows in one {@code INSERT … SELECT FROM
 * unnest} on PostgreSQL (a JDBC batch of single-row inserts is one round trip, but PostgreSQL
 * executes each row on its own), and its commit; nothing else on that connection. And how much one
 * batch may be: a batch for each of the consumer's workers, which the broker lets the single active
 * receiver hold unacknowledged even where that is more than the transport's prefetch.
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

  /**
   * The rig's consumer: 4 workers, batches of 8, on a transport with a prefetch of 16. Asked for
   * one batch at a time behind a window of one prefetch, the one receiver was the ordered path's
   * bottleneck on RabbitMQ: a lane commit per 24 events on average where the workers commit 32.
   */
  @Test
  void theReceiverTakesABatchForEveryWorkerInOneLaneCommit() {
    Set<Integer> asked = ConcurrentHashMap.newKeySet();
    try (TestDatabase db = TestDatabase.embedded();
        OrderedRig rig =
            new OrderedRig(
                db,
                vhost,
                new OnceListener() {},
                t -> new Wrapped(t, r -> asking(r, asked)),
                null)) {
      Consumer consumer = rig.consumer(rig.once(), OrderedRig::record, OrderedRig.fast(3)).build();
      rig.closing(consumer);
      consumer.start();
      rig.publish(KEYS, 1, STEPS);
      rig.startRelay();
      rig.await("all effects", () -> rig.effects() == (long) KEYS * STEPS);
      String queue = rig.destination() + ".warehouse";
      assertThat(prefetchOf(queue))
          .as("the window RabbitMQ gives the single active receiver of " + queue)
          .isEqualTo(4 * 8);
      consumer.close();

      assertThat(asked).as("deliveries asked for per poll").containsOnly(4 * 8);
      assertThat(rig.outOfOrder()).as("effects out of order").isZero();
    }
  }

  private static Receiver asking(Receiver r, Set<Integer> asked) {
    return new Passing(r) {
      @Override
      public List<Delivery> poll(int max, Duration wait, Duration linger)
          throws InterruptedException {
        asked.add(max);
        return super.poll(max, wait, linger);
      }
    };
  }

  /** The prefetch of {@code queue}'s one consumer, from {@code rabbitmqctl list_consumers}. */
  private static long prefetchOf(String queue) {
    String out =
        Broker.ctl(
            "list_consumers",
            "-p",
            vhost,
            "-q",
            "--no-table-headers",
            "queue_name",
            "prefetch_count");
    return Broker.messagesIn(out, queue, "the consumers of vhost " + vhost);
  }

  @Test
  void oneTransactionWithOneStatementPerBatchReceived() {
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
      assertThat(rig.count("SELECT count(*) FROM once_inbox"))
          .as("a marker per event: each went into the lane and ran")
          .isEqualTo((long) KEYS * STEPS);
      assertThat(lane.rows())
          .as("rows added to JDBC batches (each one a statement PostgreSQL executes)")
          .isZero();
      assertThat(lane.batchesReceived())
          .as("batches, not one by one")
          .isLessThan((long) KEYS * STEPS / 2);
      assertThat(lane.transactions()).as("lane transactions").isEqualTo(lane.batchesReceived());
      assertThat(lane.commits()).as("commits").isEqualTo(lane.batchesReceived());
      assertThat(lane.statements()).as("statements prepared").isEqualTo(lane.batchesReceived());
      assertThat(lane.executions())
          .as("statements executed (one INSERT … SELECT FROM unnest per batch)")
          .isEqualTo(lane.batchesReceived());
    }
  }
}
