package dev.once.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.once.Consumer;
import dev.once.Once;
import dev.once.OnceListener;
import dev.once.ReceivedEvent;
import dev.once.kafka.internal.GroupConsumer;
import dev.once.test.LogLines;
import dev.once.test.TestDatabase;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.consumer.OffsetCommitCallback;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/**
 * Two members of one consumer group work through a backlog; a second member joins (the first's
 * partitions are partly revoked under running batches), then the first leaves cleanly ({@code
 * Consumer.close()}, then its transport): each handover is clean, so the records handed over are no
 * evidence of a crash. The new owner runs them as fresh batches: none flagged redelivered, no group
 * of suspects, nothing run alone, no attempt charged — and every event has one effect and one
 * marker, drained within a bound, in a bounded number of transactions.
 *
 * <p>The broken twin commits the reserved mark at a handover, as after a crash (a wrapped Kafka
 * consumer keeps the highest mark it ever committed): the new owners then flag what they take over
 * and run it as suspects, and the checks fail.
 */
class CleanRebalanceIsNoEvidenceTest {
  private static final int EVENTS = 2_000;
  private static final int KEYS = 64;
  private static final int PARTITIONS = 4;
  private static final int BATCH = 32;

  /** The longest the rest may take to drain after the first member left. */
  private static final Duration DRAIN = Duration.ofSeconds(60);

  @Test
  void recordsHandedOverByARevokeOrACleanLeaveAreNotSuspected() throws Exception {
    handOverTwice(false).check();
  }

  /** The twin: a handover that flags what it hands over, as a crash does, fails the checks. */
  @Test
  void aHandoverThatFlagsWhatItHandsOverFailsTheChecks() throws Exception {
    Run twin = handOverTwice(true);
    assertThatThrownBy(twin::check)
        .as("the checks on a run whose handovers flag the records handed over")
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("deliveries flagged redelivered");
  }

  /** What a run left: the counts the checks look at. */
  private record Run(
      long effects,
      long distinct,
      long markers,
      long flagged,
      long commits,
      List<String> suspectGroups,
      List<String> alone,
      long suspects,
      long attempts,
      long deadLetters,
      long drainMillis) {
    void check() {
      assertThat(distinct).as("events processed (none lost)").isEqualTo(EVENTS);
      assertThat(effects).as("effects (a second effect would show)").isEqualTo(EVENTS);
      assertThat(markers).as("markers").isEqualTo(EVENTS);
      assertThat(flagged).as("deliveries flagged redelivered").isZero();
      assertThat(suspectGroups).as("groups of suspects").isEmpty();
      assertThat(alone).as("deliveries run alone").isEmpty();
      assertThat(suspects).as("once_suspect rows").isZero();
      assertThat(attempts).as("once_attempt rows").isZero();
      assertThat(deadLetters).as("dead letters").isZero();
      // full batches would be EVENTS / BATCH = 62.5 (64 seen); partly filled ones (the ends of
      // partitions, the stop) add a few, a raise of suspects or a delivery run alone one each
      assertThat(commits + suspectGroups.size() + alone.size())
          .as("consumer transactions")
          .isLessThanOrEqualTo(EVENTS / BATCH * 3 / 2);
    }
  }

  /** One member of the group: a transport of its own (one Kafka consumer), Once and workers. */
  private record Member(KafkaTransport transport, Once once, Consumer consumer)
      implements AutoCloseable {
    static Member join(
        TestDatabase db, String dest, boolean flagging, AtomicInteger pace, OnceListener... ls) {
      KafkaTransport.Builder b =
          Broker.transport().partitions(PARTITIONS).leaveAfterIdle(Duration.ofSeconds(1));
      if (flagging) {
        b.clients(CleanRebalanceIsNoEvidenceTest::keepingTheReservedMark);
      }
      KafkaTransport t = b.build();
      Once once = Flow.once(db, t, dest, ls);
      Consumer c =
          once.consumer("warehouse")
              .subscribe(
                  dest,
                  (tx, e) -> {
                    Thread.sleep(pace.get()); // a batch takes a while: a stop lands in one
                    tx.update(
                        "INSERT INTO effects (event_id, k, seq) VALUES (?, ?, 0)",
                        e.id().value(),
                        e.key());
                  })
              .workers(2)
              .batchSize(BATCH)
              .idleWait(Duration.ofMillis(100))
              .build()
              .start();
      return new Member(t, once, c);
    }

    int partitions(String dest) {
      GroupConsumer c = transport.consumerOf(dest, "warehouse");
      return c == null ? 0 : c.assignedPartitions();
    }

    /** Stops consuming; the transport stays open, as in a service that stops one consumer. */
    void stop() {
      consumer.close();
      once.close();
    }

    @Override
    public void close() {
      stop();
      transport.close();
    }
  }

  private Run handOverTwice(boolean flagging) throws Exception {
    String dest = PipelineNames.unique("clean-rebalance");
    AtomicLong flagged = new AtomicLong();
    AtomicLong commits = new AtomicLong();
    OnceListener counting =
        new OnceListener() {
          @Override
          public void received(List<ReceivedEvent> batch) {
            flagged.addAndGet(batch.stream().filter(ReceivedEvent::redelivered).count());
          }

          @Override
          public void committed(List<ReceivedEvent> events) {
            commits.incrementAndGet();
          }
        };
    try (TestDatabase db = TestDatabase.embedded();
        LogLines log = LogLines.capture();
        KafkaTransport producerSide = Broker.transport().partitions(PARTITIONS).build()) {
      Flow.createEffects(db);
      producerSide.declare(dest, "warehouse");
      try (Once producer = Flow.once(db, producerSide, dest)) {
        Flow.produce(producer, dest, 0, EVENTS, KEYS);
        while (producer.newRelay().runOnce() > 0) {
          // the whole backlog in Kafka before anyone consumes
        }
      }
      assertThat(Flow.pending(db)).as("outbox rows left unpublished").isZero();

      long drainMillis;
      AtomicInteger pace = new AtomicInteger(20); // slow until the second member is in
      try (Member a = Member.join(db, dest, flagging, pace, counting);
          Member b = joinWhileBusy(db, dest, flagging, pace, counting, a)) {
        pace.set(1);
        int open = a.transport().consumerOf(dest, "warehouse").openRecords();
        assertThat(open).as("records the first member holds as it stops").isPositive();
        a.stop(); // the first stops cleanly in the middle of the backlog; its transport stays
        long left = System.nanoTime();
        await()
            .atMost(DRAIN)
            .pollInterval(Duration.ofMillis(100))
            .until(() -> db.count("SELECT count(*) FROM once_inbox") >= EVENTS);
        drainMillis = (System.nanoTime() - left) / 1_000_000;
        System.out.printf("CLEAN REBALANCE: the first member left with %d records open%n", open);
        await()
            .atMost(Duration.ofSeconds(30))
            .until(() -> b.partitions(dest) == PARTITIONS); // the second took every partition
      }
      Run run =
          new Run(
              Flow.effects(db),
              Flow.distinctEffects(db),
              db.count("SELECT count(*) FROM once_inbox"),
              flagged.get(),
              commits.get(),
              log.matching("came back redelivered for no cause"),
              log.matching("it runs alone"),
              db.count("SELECT count(*) FROM once_suspect"),
              db.count("SELECT count(*) FROM once_attempt"),
              db.count("SELECT count(*) FROM once_dead_letter"),
              drainMillis);
      System.out.printf("CLEAN REBALANCE (flagging handover %s): %s%n", flagging, run);
      return run;
    }
  }

  /**
   * The second member joins while the first works through the backlog, its workers holding batches;
   * returns when the first's partitions were partly revoked and the second has them.
   */
  private static Member joinWhileBusy(
      TestDatabase db,
      String dest,
      boolean flagging,
      AtomicInteger pace,
      OnceListener counting,
      Member a) {
    await()
        .atMost(Duration.ofSeconds(60))
        .until(() -> a.partitions(dest) == PARTITIONS && Flow.effects(db) >= BATCH);
    Member b = Member.join(db, dest, flagging, pace, counting);
    await()
        .atMost(Duration.ofSeconds(60))
        .until(() -> a.partitions(dest) < PARTITIONS && b.partitions(dest) > 0);
    return b;
  }

  private static final Pattern MARK = Pattern.compile("m=(-?\\d+)");

  /**
   * A Kafka consumer whose every commit carries the highest mark it committed for the partition so
   * far, as if no handover were clean: what a crash leaves for the next owner.
   */
  private static KafkaConsumer<byte[], byte[]> keepingTheReservedMark(Properties p) {
    Map<TopicPartition, Long> highest = new ConcurrentHashMap<>();
    return new KafkaConsumer<>(p) {
      @Override
      public void commitSync(Map<TopicPartition, OffsetAndMetadata> offsets, Duration timeout) {
        super.commitSync(highestMarks(offsets, highest), timeout);
      }

      @Override
      public void commitAsync(
          Map<TopicPartition, OffsetAndMetadata> offsets, OffsetCommitCallback callback) {
        super.commitAsync(highestMarks(offsets, highest), callback);
      }
    };
  }

  private static Map<TopicPartition, OffsetAndMetadata> highestMarks(
      Map<TopicPartition, OffsetAndMetadata> offsets, Map<TopicPartition, Long> highest) {
    Map<TopicPartition, OffsetAndMetadata> out = new HashMap<>();
    offsets.forEach(
        (tp, o) -> {
          Matcher m = MARK.matcher(o.metadata());
          if (!m.find()) {
            out.put(tp, o);
            return;
          }
          long mark = highest.merge(tp, Long.parseLong(m.group(1)), Math::max);
          out.put(tp, new OffsetAndMetadata(o.offset(), m.replaceFirst("m=" + mark)));
        });
    return out;
  }
}
