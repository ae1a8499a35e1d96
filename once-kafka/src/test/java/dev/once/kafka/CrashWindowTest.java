package dev.once.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import dev.once.Consumer;
import dev.once.Event;
import dev.once.EventId;
import dev.once.Once;
import dev.once.OnceListener;
import dev.once.Outcome;
import dev.once.ReceivedEvent;
import dev.once.test.TestDatabase;
import dev.once.testkit.CrashPoint;
import dev.once.testkit.FaultInjector;
import dev.once.testkit.SimulatedCrash;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A worker stopped at each consumer crash window, over Kafka; the record comes back, to one worker
 * (sequentially) or — with three more copies of the event published under other keys, so that they
 * sit in other partitions and reach other workers at the same time — to four workers at once. The
 * data must show one effect and one marker.
 */
class CrashWindowTest {
  private static TestDatabase db;
  private static KafkaTransport transport;

  @BeforeAll
  static void open() {
    db = TestDatabase.embedded();
    db.execute("CREATE TABLE effects (event_id text NOT NULL)");
    transport = Broker.transport().build();
  }

  @AfterAll
  static void close() {
    transport.close();
    db.close();
  }

  static Stream<Arguments> windows() {
    return Stream.of(
            CrashPoint.CONSUMER_BEFORE_TRANSACTION,
            CrashPoint.CONSUMER_AFTER_MARKER,
            CrashPoint.CONSUMER_AFTER_EFFECT_BEFORE_COMMIT,
            CrashPoint.CONSUMER_AFTER_COMMIT_BEFORE_ACK)
        .flatMap(p -> Stream.of(Arguments.of(p, 1), Arguments.of(p, 4)));
  }

  @ParameterizedTest(name = "{0} with {1} copies and workers")
  @MethodSource("windows")
  void aWorkerStoppedAtTheWindowLeadsToOneEffectAndOneMarkerAfterTheRedelivery(
      CrashPoint point, int copies) throws Exception {
    String dest = PipelineNames.unique("crash");
    String consumerId = PipelineNames.unique("c");
    EventId id = EventId.of("order-paid", dest);
    FaultInjector faults = FaultInjector.once(point, consumerId + "/" + id.value());
    List<Outcome> outcomes = new CopyOnWriteArrayList<>();
    OnceListener recorder =
        new OnceListener() {
          @Override
          public void outcome(ReceivedEvent event, Outcome outcome, Duration took) {
            outcomes.add(outcome);
          }
        };
    transport.declare(dest, consumerId);
    try (Once once =
        Once.builder()
            .dataSource(db.dataSource())
            .transport(transport)
            .destinations(dest)
            .listener(faults)
            .listener(recorder)
            .build()) {
      List<Consumer> workers = new ArrayList<>();
      for (int i = 0; i < copies; i++) {
        workers.add(
            once.consumer(consumerId)
                .subscribe(
                    dest, (tx, e) -> tx.update("INSERT INTO effects VALUES (?)", e.id().value()))
                .batchSize(1)
                .idleWait(Duration.ofMillis(100))
                .build());
      }
      once.useTransaction(tx -> tx.publish(Event.of(id, dest, "k0", "OrderPaid", "{}")));
      assertThat(once.newRelay().runOnce()).isEqualTo(1);
      for (int i = 1; i < copies; i++) { // the same event again: what a relay republish does
        assertThat(
                transport
                    .publish(
                        List.of(Event.of(id, dest, "k" + i, "OrderPaid", "{}")),
                        Duration.ofSeconds(10))
                    .confirmed()
                    .cardinality())
            .isEqualTo(1);
      }
      runAll(workers, () -> outcomes.size() >= copies);
      workers.forEach(Consumer::close);
    }
    assertThat(faults.totalCrashes()).as("the crash happened").isEqualTo(1);
    assertThat(db.count("SELECT count(*) FROM effects WHERE event_id = ?", id.value()))
        .as("effects")
        .isEqualTo(1);
    assertThat(
            db.count(
                "SELECT count(*) FROM once_inbox WHERE consumer_id = ? AND event_id = ?",
                consumerId,
                id.value()))
        .as("markers")
        .isEqualTo(1);
    assertThat(outcomes.stream().filter(o -> o == Outcome.PROCESSED).count())
        .as("PROCESSED outcomes %s", outcomes)
        .isLessThanOrEqualTo(1);
    if (copies == 1 && point == CrashPoint.CONSUMER_AFTER_COMMIT_BEFORE_ACK) {
      // processed before the crash, unreported; the redelivery finds the marker
      assertThat(outcomes).containsExactly(Outcome.DUPLICATE);
    } else if (copies == 1) {
      assertThat(outcomes).containsExactly(Outcome.PROCESSED);
    }
  }

  private static void runAll(List<Consumer> workers, java.util.function.BooleanSupplier done)
      throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(workers.size());
    try {
      List<Future<?>> running = new ArrayList<>();
      long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      for (Consumer w : workers) {
        running.add(
            pool.submit(
                () -> {
                  while (!done.getAsBoolean() && System.nanoTime() < deadline) {
                    try {
                      w.runOnce();
                    } catch (SimulatedCrash expected) {
                      // the worker died at the window; the next runOnce is its restart
                    }
                  }
                }));
      }
      for (Future<?> f : running) {
        f.get(40, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }
  }
}
