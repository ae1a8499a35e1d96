package dev.once.workload;

import static org.awaitility.Awaitility.await;

import dev.once.Consumer;
import dev.once.DeadLetters;
import dev.once.Event;
import dev.once.EventId;
import dev.once.Handler;
import dev.once.Once;
import dev.once.OnceBuilder;
import dev.once.Relay;
import dev.once.RetryPolicy;
import dev.once.WorkloadStatus;
import dev.once.tablequeue.TableQueueTransport;
import dev.once.test.TestDatabase;
import dev.once.testkit.SettableClock;
import java.time.Duration;
import java.util.function.UnaryOperator;

/** A database, a table queue and a Once on it, for the workload tests. */
final class Rig implements AutoCloseable {
  final TestDatabase db;
  final SettableClock clock = SettableClock.running();
  final TableQueueTransport transport;
  final Once once;

  static final Duration VISIBILITY_TIMEOUT = Duration.ofMillis(500);

  Rig(TestDatabase db) {
    this(db, b -> b);
  }

  Rig(TestDatabase db, UnaryOperator<OnceBuilder> settings) {
    this.db = db;
    this.transport =
        TableQueueTransport.builder(db.dataSource())
            .visibilityTimeout(VISIBILITY_TIMEOUT)
            .clock(clock)
            .build();
    this.once =
        settings
            .apply(
                Once.builder()
                    .dataSource(db.dataSource())
                    .transport(transport)
                    .destinations("orders", "nowhere")
                    .clock(clock))
            .build();
  }

  Consumer consumer(String id, RetryPolicy policy, Handler handler) {
    return once.consumer(id)
        .subscribe("orders", handler)
        .retry(policy)
        .batchSize(8)
        .idleWait(Duration.ofMillis(50))
        .build();
  }

  static RetryPolicy fast(int maxAttempts) {
    return RetryPolicy.builder()
        .maxAttempts(maxAttempts)
        .backoff(Duration.ofMillis(1), Duration.ofMillis(5))
        .build();
  }

  void publish(String destination, long id, String payload) {
    once.inTransaction(
        tx ->
            tx.publish(
                Event.of(
                    EventId.of("order-paid", id),
                    destination,
                    Long.toString(id),
                    "OrderPaid",
                    payload)));
  }

  DeadLetters deadLetters() {
    return once.deadLetters();
  }

  /** Runs relay and consumer until the queue is empty and the outbox drained, or 20 s pass. */
  void drain(Consumer... consumers) {
    Relay relay = once.newRelay();
    await("queue empty and outbox drained")
        .atMost(Duration.ofSeconds(20))
        .pollInterval(Duration.ofMillis(5))
        .until(
            () -> {
              relay.runOnce();
              for (Consumer c : consumers) {
                c.runOnce();
              }
              return drained();
            });
  }

  /** Whether the queue is empty and no outbox row waits (parked ones aside). */
  boolean drained() {
    WorkloadStatus status = once.status();
    return status.queue().stream().allMatch(b -> b.waiting() == 0)
        && status.outbox().stream().allMatch(b -> b.waiting() == 0);
  }

  @Override
  public void close() {
    once.close();
    transport.close();
    db.close();
  }
}
