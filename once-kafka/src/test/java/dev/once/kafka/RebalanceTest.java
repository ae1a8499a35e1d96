package dev.once.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.once.Consumer;
import dev.once.Once;
import dev.once.OnceListener;
import dev.once.Outcome;
import dev.once.ReceivedEvent;
import dev.once.Relay;
import dev.once.test.TestDatabase;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * Consumers join and leave a consumer group while 10 000 events flow: each rebalance moves
 * partitions between members mid-flow, with records in flight. The first member gives its workers
 * no time on a revoke, so records it processed reach the new owner again (DUPLICATE outcomes).
 * Every event must have exactly one effect, none may be lost, and the events of one key must be
 * processed in their order.
 */
class RebalanceTest {
  private static final int EVENTS = 10_000;
  private static final int KEYS = 100;

  /** One consumer process: its own transport (one Kafka group member), Once and workers. */
  private record Member(KafkaTransport transport, Once once, Consumer consumer)
      implements AutoCloseable {
    static Member join(
        TestDatabase db,
        String dest,
        Flow.Outcomes outcomes,
        Duration revokeTimeout,
        AtomicBoolean holdUntilRevoked) {
      KafkaTransport t = Broker.transport().partitions(6).revokeTimeout(revokeTimeout).build();
      OnceListener hold =
          new OnceListener() {
            @Override
            public void committed(List<ReceivedEvent> events) {
              // committed, not yet acknowledged: wait here until partitions were taken away
              if (holdUntilRevoked.get()) {
                await()
                    .atMost(Duration.ofSeconds(20))
                    .until(
                        () ->
                            !holdUntilRevoked.get()
                                || t.consumerOf(dest, "warehouse").assignedPartitions() < 6);
              }
            }
          };
      Once once = Flow.once(db, t, dest, outcomes, hold);
      Consumer c = Flow.consumer(once, dest, 2);
      c.start();
      return new Member(t, once, c);
    }

    @Override
    public void close() {
      consumer.close();
      once.close();
      transport.close();
    }
  }

  @Test
  void consumersJoiningAndLeavingMidFlowLeaveOneEffectPerEventNoneLostAndKeyOrderKept()
      throws Exception {
    String dest = PipelineNames.unique("rebalance");
    Flow.Outcomes outcomes = new Flow.Outcomes();
    try (TestDatabase db = TestDatabase.embedded();
        KafkaTransport producerSide = Broker.transport().partitions(6).build()) {
      Flow.createEffects(db);
      producerSide.declare(dest, "warehouse");
      Once producer = Flow.once(db, producerSide, dest);
      Relay relay = producer.newRelay();
      relay.start();
      AtomicReference<Throwable> producerFailed = new AtomicReference<>();
      Thread produce =
          new Thread(
              () -> {
                try {
                  for (int from = 0; from < EVENTS; from += 250) {
                    Flow.produce(producer, dest, from, from + 250, KEYS);
                    await().atMost(Duration.ofSeconds(60)).until(() -> Flow.pending(db) < 1000);
                  }
                } catch (Throwable e) {
                  producerFailed.set(e);
                }
              },
              "producer");
      produce.start();

      // The first member does not wait for its workers when partitions are taken from it: what
      // they finish after that is not committed, and the new owner gets those records again.
      // Its workers also hold their committed batches, unacknowledged, until the first rebalance
      // took partitions away: what they hold of those partitions must come back as DUPLICATEs.
      AtomicBoolean holdA = new AtomicBoolean();
      Member a = Member.join(db, dest, outcomes, Duration.ofMillis(1), holdA);
      Member b = null;
      Member c = null;
      try {
        awaitEffects(db, 2_000);
        holdA.set(true);
        b = Member.join(db, dest, outcomes, Duration.ofSeconds(5), new AtomicBoolean());
        Member first = a; // a second consumer joined; wait for the partitions to move
        await()
            .atMost(Duration.ofSeconds(60))
            .until(() -> first.transport().consumerOf(dest, "warehouse").assignedPartitions() < 6);
        holdA.set(false);
        awaitEffects(db, 4_000);
        c = Member.join(db, dest, outcomes, Duration.ofSeconds(5), new AtomicBoolean()); // third
        awaitEffects(db, 6_000);
        a.close(); // the first one leaves
        a = null;
        produce.join(120_000);
        assertThat(producerFailed.get()).isNull();
        await()
            .atMost(Duration.ofSeconds(120))
            .pollInterval(Duration.ofMillis(250))
            .until(() -> Flow.distinctEffects(db) >= EVENTS && Flow.pending(db) == 0);
        // late redeliveries of records whose acks a revoke dropped would land now
        await()
            .atMost(Duration.ofSeconds(30))
            .until(() -> producerSide.depth(dest, "warehouse").orElse(-1) == 0);
      } finally {
        for (Member m : new Member[] {a, b, c}) {
          if (m != null) {
            m.close();
          }
        }
        relay.close();
        producer.close();
      }
      long effects = Flow.effects(db);
      long distinct = Flow.distinctEffects(db);
      long violations = Flow.orderViolations(db);
      long markers = db.count("SELECT count(*) FROM once_inbox");
      System.out.printf(
          "REBALANCE %d events: %d effects, %d distinct, %d markers, %d order violations,"
              + " outcomes %s%n",
          EVENTS, effects, distinct, markers, violations, outcomes);
      assertThat(distinct).as("events processed (none lost)").isEqualTo(EVENTS);
      assertThat(effects).as("effects (a duplicate effect would show here)").isEqualTo(EVENTS);
      assertThat(markers).as("markers").isEqualTo(EVENTS);
      assertThat(violations).as("events of one key processed out of order").isZero();
      assertThat(outcomes.get(Outcome.PROCESSED)).isEqualTo(EVENTS);
      assertThat(outcomes.get(Outcome.DUPLICATE))
          .as("records the first member processed came back to the new owners")
          .isPositive();
    }
  }

  private static void awaitEffects(TestDatabase db, long n) {
    await()
        .atMost(Duration.ofSeconds(120))
        .pollInterval(Duration.ofMillis(100))
        .until(() -> Flow.effects(db) >= n);
  }
}
