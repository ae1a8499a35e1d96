package dev.once.guarantee;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.once.Consumer;
import dev.once.Event;
import dev.once.Handler;
import dev.once.Outcome;
import dev.once.test.TestDatabase;
import dev.once.testkit.CrashPoint;
import dev.once.testkit.FaultInjector;
import dev.once.testkit.SimulatedCrash;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A worker stopped at each consumer crash window; then the delivery comes again, sequentially or to
 * several workers at once. The data must show one effect, one marker and one outgoing event.
 */
class CrashWindowTest {
  private static final List<CrashPoint> CONSUMER_WINDOWS =
      List.of(
          CrashPoint.CONSUMER_BEFORE_TRANSACTION,
          CrashPoint.CONSUMER_AFTER_MARKER,
          CrashPoint.CONSUMER_AFTER_EFFECT_BEFORE_COMMIT,
          CrashPoint.CONSUMER_AFTER_COMMIT_BEFORE_ACK);

  static Stream<Arguments> windowsOnEachDatabase() {
    return Stream.of(DatabaseKind.values())
        .flatMap(db -> CONSUMER_WINDOWS.stream().map(p -> Arguments.of(db, p)));
  }

  @ParameterizedTest(name = "{1} on {0}")
  @MethodSource("windowsOnEachDatabase")
  void aWorkerStoppedAtTheWindowLeadsToOneEffectAfterRedelivery(
      DatabaseKind kind, CrashPoint point) {
    try (TestDatabase db = kind.get()) {
      Result r = crashThenRedeliver(db, point, Harness.EFFECT_AND_FOLLOW, 1);
      r.assertProcessedOnce();
      assertThat(r.crashes).as("the crash happened").isEqualTo(1);
    }
  }

  @ParameterizedTest(name = "{1} on {0}")
  @MethodSource("windowsOnEachDatabase")
  void aWorkerStoppedAtTheWindowWhileThreeOthersHoldCopiesLeadsToOneEffect(
      DatabaseKind kind, CrashPoint point) {
    try (TestDatabase db = kind.get()) {
      Result r = crashThenRedeliver(db, point, Harness.EFFECT_AND_FOLLOW, 4);
      r.assertProcessedOnce();
      assertThat(r.crashes).isEqualTo(1);
    }
  }

  /** The same check fails for a handler that writes its effect outside Once's transaction. */
  @ParameterizedTest
  @EnumSource(DatabaseKind.class)
  void theCheckCatchesAHandlerThatWritesOutsideTheTransaction(DatabaseKind kind) {
    try (TestDatabase db = kind.get()) {
      Handler ownConnection =
          (tx, e) -> {
            try (Connection c = db.dataSource().getConnection();
                PreparedStatement ps =
                    c.prepareStatement("INSERT INTO effects (event_id) VALUES (?)")) {
              ps.setString(1, e.id().value()); // autocommit: survives the rollback
              ps.executeUpdate();
            }
          };
      Result r =
          crashThenRedeliver(db, CrashPoint.CONSUMER_AFTER_EFFECT_BEFORE_COMMIT, ownConnection, 1);
      assertThatThrownBy(r::assertProcessedOnce).isInstanceOf(AssertionError.class);
      assertThat(r.effects).isEqualTo(2);
    }
  }

  /**
   * Publishes one event, puts {@code copies - 1} extra copies in the broker, crashes the first
   * worker that reaches {@code point}, and runs {@code copies} workers until the event is processed
   * and nothing is left in the queue.
   */
  private static Result crashThenRedeliver(
      TestDatabase db, CrashPoint point, Handler handler, int copies) {
    return crashThenRedeliver(db, point, handler, copies, false);
  }

  private static Result crashThenRedeliver(
      TestDatabase db, CrashPoint point, Handler handler, int copies, boolean inProducer) {
    String id = "order-paid:" + point.ordinal() + "-" + copies;
    FaultInjector faults = FaultInjector.once(point, "warehouse/" + id);
    try (Harness h =
        inProducer ? Harness.enqueuingInProducer(db, faults) : new Harness(db, faults)) {
      List<Consumer> workers = new ArrayList<>();
      for (int i = 0; i < copies; i++) {
        workers.add(h.consumer("warehouse", handler, 1));
      }
      Event event = Harness.event(id);
      h.produce(event);
      for (int i = 1; i < copies; i++) {
        h.transport.publish(List.of(event), Duration.ofSeconds(5));
      }
      runAll(h, workers);
      workers.forEach(Consumer::close);
      if (inProducer) {
        assertThat(db.count("SELECT count(*) FROM once_outbox"))
            .as("outbox rows: the producer and the handler enqueued")
            .isZero();
      }
      return new Result(
          id,
          point,
          h.effects(id),
          h.markers("warehouse", id),
          h.followRows("warehouse", id),
          h.count(Outcome.PROCESSED),
          faults.totalCrashes());
    }
  }

  private static void runAll(Harness h, List<Consumer> workers) {
    ExecutorService pool = Executors.newFixedThreadPool(workers.size());
    try {
      List<Future<?>> running = new ArrayList<>();
      for (Consumer w : workers) {
        running.add(
            pool.submit(
                () ->
                    h.runUntil(
                        w, () -> h.transport.depth(Harness.DEST, "warehouse").getAsLong() == 0)));
      }
      for (Future<?> f : running) {
        f.get(30, TimeUnit.SECONDS);
      }
    } catch (Exception e) {
      throw new IllegalStateException(e);
    } finally {
      pool.shutdownNow();
    }
  }

  private record Result(
      String id,
      CrashPoint point,
      long effects,
      long markers,
      long follows,
      long processed,
      long crashes) {
    void assertProcessedOnce() {
      assertThat(effects).as("effects of %s", id).isEqualTo(1);
      assertThat(markers).as("markers of %s", id).isEqualTo(1);
      assertThat(follows).as("outgoing events of %s", id).isEqualTo(1);
      if (point == CrashPoint.CONSUMER_AFTER_COMMIT_BEFORE_ACK) {
        // The stopped worker may be the one that committed (it never reports PROCESSED; its
        // commit deleted the queue row, so nothing comes back) or, with several workers, one
        // that found a DUPLICATE.
        assertThat(processed).as("PROCESSED outcomes of %s", id).isBetween(0L, 1L);
      } else {
        assertThat(processed).as("PROCESSED outcomes of %s", id).isEqualTo(1);
      }
    }
  }

  /**
   * The table queue's default on Once's own data source: the producer enqueued the event in its
   * transaction, the handler its outgoing one in the batch's. A worker stopped at each window,
   * alone or beside three others holding copies, still leads to one effect, one marker, one
   * outgoing event, and no outbox row.
   */
  @ParameterizedTest(name = "{1} on {0}")
  @MethodSource("windowsOnEachDatabase")
  void aWorkerStoppedAtTheWindowAfterTheProducerEnqueuedLeadsToOneEffect(
      DatabaseKind kind, CrashPoint point) {
    try (TestDatabase db = kind.get()) {
      Result r = crashThenRedeliver(db, point, Harness.EFFECT_AND_FOLLOW, 1, true);
      r.assertProcessedOnce();
      assertThat(r.crashes).as("the crash happened").isEqualTo(1);
    }
    try (TestDatabase db = kind.get()) {
      Result r = crashThenRedeliver(db, point, Harness.EFFECT_AND_FOLLOW, 4, true);
      r.assertProcessedOnce();
      assertThat(r.crashes).as("the crash happened").isEqualTo(1);
    }
  }

  /**
   * A producer that enqueues in its transaction and stops before the commit leaves no queue row.
   */
  @ParameterizedTest
  @EnumSource(DatabaseKind.class)
  void aProducerStoppedBeforeCommitLeavesNoQueueRowWhereItEnqueues(DatabaseKind kind) {
    try (TestDatabase db = kind.get();
        Harness h =
            Harness.enqueuingInProducer(
                db, FaultInjector.once(CrashPoint.PRODUCER_BEFORE_COMMIT, "order-paid:q"))) {
      Consumer consumer = h.consumer("warehouse", Harness.EFFECT_AND_FOLLOW, 1);
      assertThatThrownBy(
              () ->
                  h.once.inTransaction(
                      tx -> {
                        tx.update("INSERT INTO effects (event_id) VALUES ('business change')");
                        return tx.publish(Harness.event("order-paid:q"));
                      }))
          .isInstanceOf(SimulatedCrash.class);

      assertThat(db.count("SELECT count(*) FROM effects")).as("business change").isZero();
      assertThat(db.count("SELECT count(*) FROM once_queue")).as("queue rows").isZero();
      assertThat(db.count("SELECT count(*) FROM once_outbox")).as("outbox rows").isZero();
      assertThat(consumer.runOnce()).as("delivered").isZero();

      h.once.inTransaction(tx -> tx.publish(Harness.event("order-paid:q")));
      assertThat(db.count("SELECT count(*) FROM once_queue")).as("after a commit").isEqualTo(1);
      assertThat(db.count("SELECT count(*) FROM once_outbox")).as("outbox rows").isZero();
      h.runUntil(consumer, () -> h.outcomes.size() == 1);
      assertThat(h.effects("order-paid:q")).isEqualTo(1);
      assertThat(h.markers("warehouse", "order-paid:q")).isEqualTo(1);
    }
  }

  @ParameterizedTest
  @EnumSource(DatabaseKind.class)
  void aProducerStoppedBeforeCommitLeavesNoChangeNoOutboxRowAndPublishesNothing(DatabaseKind kind) {
    try (TestDatabase db = kind.get();
        Harness h =
            new Harness(
                db, FaultInjector.once(CrashPoint.PRODUCER_BEFORE_COMMIT, "order-paid:p"))) {
      h.consumer("warehouse", Harness.EFFECT_AND_FOLLOW, 1).close();
      assertThatThrownBy(
              () ->
                  h.once.inTransaction(
                      tx -> {
                        tx.update("INSERT INTO effects (event_id) VALUES ('business change')");
                        return tx.publish(Harness.event("order-paid:p"));
                      }))
          .isInstanceOf(SimulatedCrash.class);

      assertThat(db.count("SELECT count(*) FROM effects")).as("business change").isZero();
      assertThat(db.count("SELECT count(*) FROM once_outbox")).as("outbox rows").isZero();
      assertThat(h.once.newRelay().runOnce()).as("published").isZero();
      assertThat(h.transport.depth(Harness.DEST, "warehouse").getAsLong()).isZero();
    }
  }

  @ParameterizedTest
  @EnumSource(DatabaseKind.class)
  void aRelayStoppedAfterPublishRepublishesTheSameIdAndTheConsumerSeesADuplicate(
      DatabaseKind kind) {
    String id = "order-paid:r";
    // a queue on a data source of its own: the relay publishes to it as to a broker
    try (TestDatabase db = kind.get();
        Harness h =
            new Harness(
                db,
                true,
                b -> b,
                FaultInjector.once(CrashPoint.RELAY_AFTER_PUBLISH_BEFORE_MARK_SENT, id))) {
      Consumer consumer = h.consumer("warehouse", Harness.EFFECT_AND_FOLLOW, 1);
      h.once.inTransaction(tx -> tx.publish(Harness.event(id)));
      assertThatThrownBy(() -> h.once.newRelay().runOnce()).isInstanceOf(SimulatedCrash.class);
      assertThat(db.count("SELECT count(*) FROM once_outbox WHERE sent_at IS NULL"))
          .as("still pending")
          .isEqualTo(1);

      assertThat(h.once.newRelay().runOnce()).as("published again").isEqualTo(1);
      assertThat(db.count("SELECT count(*) FROM once_queue WHERE event_id = ?", id))
          .as("copies")
          .isEqualTo(2);
      h.runUntil(consumer, () -> h.outcomes.size() == 2);

      assertThat(h.effects(id)).isEqualTo(1);
      assertThat(h.markers("warehouse", id)).isEqualTo(1);
      assertThat(h.outcomes).containsExactlyInAnyOrder(Outcome.PROCESSED, Outcome.DUPLICATE);
    }
  }

  /**
   * The table queue on Once's own data source, with {@code publishInRelayTransaction}, is written
   * in the relay's transaction: a relay that dies after publishing, before marking sent, leaves the
   * row pending and no copy in the queue, so the next relay publishes it once and the consumer sees
   * it once.
   */
  @ParameterizedTest
  @EnumSource(DatabaseKind.class)
  void aRelayStoppedAfterPublishingInItsOwnTransactionLeavesNoCopy(DatabaseKind kind) {
    String id = "order-paid:t";
    try (TestDatabase db = kind.get();
        Harness h =
            new Harness(
                db, FaultInjector.once(CrashPoint.RELAY_AFTER_PUBLISH_BEFORE_MARK_SENT, id))) {
      Consumer consumer = h.consumer("warehouse", Harness.EFFECT_AND_FOLLOW, 1);
      h.once.inTransaction(tx -> tx.publish(Harness.event(id)));
      assertThatThrownBy(() -> h.once.newRelay().runOnce()).isInstanceOf(SimulatedCrash.class);
      assertThat(db.count("SELECT count(*) FROM once_outbox WHERE sent_at IS NULL"))
          .as("still pending")
          .isEqualTo(1);
      assertThat(db.count("SELECT count(*) FROM once_queue WHERE event_id = ?", id))
          .as("copies after the crash")
          .isZero();

      assertThat(h.once.newRelay().runOnce()).as("published again").isEqualTo(1);
      assertThat(db.count("SELECT count(*) FROM once_queue WHERE event_id = ?", id))
          .as("copies")
          .isEqualTo(1);
      h.runUntil(consumer, () -> h.outcomes.size() == 1);

      assertThat(h.effects(id)).isEqualTo(1);
      assertThat(h.markers("warehouse", id)).isEqualTo(1);
      assertThat(h.outcomes).containsExactly(Outcome.PROCESSED);
      assertThat(
              db.count(
                  "SELECT count(*) FROM once_outbox WHERE event_id = ? AND sent_at IS NOT NULL",
                  id))
          .as("marked sent")
          .isEqualTo(1);
    }
  }
}
