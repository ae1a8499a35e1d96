package dev.once.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.once.Consumer;
import dev.once.Event;
import dev.once.EventId;
import dev.once.Once;
import dev.once.OnceListener;
import dev.once.Outcome;
import dev.once.ReceivedEvent;
import dev.once.spi.InDatabaseAck;
import dev.once.spi.QueueAdmin;
import dev.once.spi.Transport;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * Producer → outbox → relay → transport → consumer, with a worker crashed at a crash window; checks
 * the data (effects and markers), not acknowledgements. Part of {@link TransportContract}.
 */
public abstract class PipelineContract {
  private static final AtomicInteger counter = new AtomicInteger();

  /** The transport under test; the same instance for the whole test method. */
  protected abstract Transport transport();

  /** A database with Once's schema, the same for the whole test method. */
  protected abstract DataSource dataSource();

  /** How long a delivery that was not acknowledged may take to come back. */
  protected Duration redeliveryWait() {
    return Duration.ofSeconds(10);
  }

  /** A name no other test uses (destinations, consumer groups, tables). */
  protected static String unique(String base) {
    return base + "-" + ProcessHandle.current().pid() + "-" + counter.incrementAndGet();
  }

  /**
   * What a crash scenario left in the database, and in the transport ({@code left}: the group's
   * messages still there, in flight or not; -1 where the transport cannot tell).
   */
  protected record Result(long effects, long markers, List<Outcome> outcomes, long left) {}

  @Test
  void aCrashAfterCommitBeforeAckIsRedeliveredAsADuplicateWithOneEffect() {
    Assumptions.assumeFalse(acksInTransaction(), "acknowledged in the commit: no window after it");
    Result r =
        crashOnce(transport(), CrashPoint.CONSUMER_AFTER_COMMIT_BEFORE_ACK, Outcome.DUPLICATE);
    assertEquals(1, r.effects(), "effects " + r);
    assertEquals(1, r.markers(), "markers " + r);
    assertEquals(List.of(Outcome.DUPLICATE), r.outcomes(), "outcomes " + r);
  }

  /**
   * A transport that acknowledges in the consumer's transaction ({@link InDatabaseAck}) has nothing
   * left to redeliver after that commit: a crash there leaves one effect, one marker, no message.
   */
  @Test
  void aCrashAfterACommitThatAcknowledgedLeavesNothingToRedeliver() {
    Assumptions.assumeTrue(acksInTransaction(), "acknowledged after the commit");
    Result r = crashOnce(transport(), CrashPoint.CONSUMER_AFTER_COMMIT_BEFORE_ACK, null);
    assertEquals(1, r.effects(), "effects " + r);
    assertEquals(1, r.markers(), "markers " + r);
    assertEquals(List.of(), r.outcomes(), "outcomes " + r);
    assertEquals(0, r.left(), "messages left " + r);
  }

  /** Whether the transport under test acknowledges in transactions on {@link #dataSource()}. */
  private boolean acksInTransaction() {
    return transport()
        .capability(InDatabaseAck.class)
        .filter(a -> a.acksIn(dataSource()))
        .isPresent();
  }

  @Test
  void aCrashBeforeCommitIsRedeliveredAndProcessedOnce() {
    Result r =
        crashOnce(transport(), CrashPoint.CONSUMER_AFTER_EFFECT_BEFORE_COMMIT, Outcome.PROCESSED);
    assertEquals(1, r.effects(), "effects " + r);
    assertEquals(1, r.markers(), "markers " + r);
    assertEquals(List.of(Outcome.PROCESSED), r.outcomes(), "outcomes " + r);
  }

  /** Shows that the crash test can fail: a transport acking before commit loses the event. */
  @Test
  void theCrashTestCatchesATransportThatAcknowledgesBeforeTheCommit() {
    Transport broken = new EarlyAckingTransport(transport());
    Result r = crashOnce(broken, CrashPoint.CONSUMER_AFTER_EFFECT_BEFORE_COMMIT, Outcome.PROCESSED);
    assertEquals(0, r.effects(), "the early ack should have lost the event: " + r);
    assertEquals(0, r.markers(), "markers " + r);
  }

  /**
   * Publishes one event through the outbox, crashes the consumer once at {@code point}, and runs
   * the consumer until {@code until} is seen (null: until the crash) or {@link #redeliveryWait()}
   * ran out.
   */
  protected Result crashOnce(Transport transport, CrashPoint point, Outcome until) {
    String dest = unique("pipeline");
    String consumerId = unique("c");
    String table = "contract_effects_" + counter.incrementAndGet();
    execute("CREATE TABLE " + table + " (event_id text NOT NULL)");
    EventId id = EventId.of("order-paid", UUID.randomUUID());
    List<Outcome> outcomes = new CopyOnWriteArrayList<>();
    OnceListener recorder =
        new OnceListener() {
          @Override
          public void outcome(ReceivedEvent event, Outcome outcome, Duration took) {
            outcomes.add(outcome);
          }
        };
    try (Once once =
        Once.builder()
            .dataSource(dataSource())
            .transport(transport)
            .destinations(dest)
            .listener(FaultInjector.once(point, consumerId + "/" + id.value()))
            .listener(recorder)
            .build()) {
      Consumer consumer =
          once.consumer(consumerId)
              .subscribe(
                  dest,
                  (tx, e) -> tx.update("INSERT INTO " + table + " VALUES (?)", e.id().value()))
              .idleWait(Duration.ofMillis(200))
              .build();
      try (consumer) {
        once.inTransaction(tx -> tx.publish(Event.of(id, dest, "k", "OrderPaid", "{}")));
        assertEquals(1, once.newRelay().runOnce(), "relay published and marked the event");
        runUntil(consumer, outcomes, until);
      }
    }
    return new Result(
        count("SELECT count(*) FROM " + table),
        count("SELECT count(*) FROM once_inbox WHERE consumer_id = ?", consumerId),
        List.copyOf(outcomes),
        transport
            .capability(QueueAdmin.class)
            .map(q -> q.depth(dest, consumerId).orElse(-1))
            .orElse(-1L));
  }

  private void runUntil(Consumer consumer, List<Outcome> outcomes, Outcome until) {
    long deadline = System.nanoTime() + redeliveryWait().toNanos();
    boolean crashed = false;
    while (!(until == null ? crashed : outcomes.contains(until)) && System.nanoTime() < deadline) {
      try {
        consumer.runOnce();
      } catch (SimulatedCrash expected) {
        crashed = true; // the worker died at the crash window; the next runOnce is its restart
      }
    }
  }

  protected long count(String sql, Object... params) {
    try {
      return ContractSql.count(dataSource(), sql, params);
    } catch (SQLException e) {
      throw new IllegalStateException(sql, e);
    }
  }

  protected void execute(String sql) {
    try {
      ContractSql.execute(dataSource(), sql);
    } catch (SQLException e) {
      throw new IllegalStateException(sql, e);
    }
  }
}
