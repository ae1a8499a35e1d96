package dev.once.testkit;

import dev.once.Consumer;
import dev.once.Event;
import dev.once.EventId;
import dev.once.Once;
import dev.once.OnceBuilder;
import dev.once.OnceListener;
import dev.once.Outcome;
import dev.once.ReceivedEvent;
import dev.once.RetryPolicy;
import dev.once.spi.PublishResult;
import dev.once.spi.Transport;
import dev.once.tablequeue.TableQueueTransport;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/** One {@link HandlerKit} check: builds the pipeline, drives it, and judges the data. */
final class KitRun {
  static final List<CrashPoint> WINDOWS =
      List.of(
          CrashPoint.CONSUMER_BEFORE_TRANSACTION,
          CrashPoint.CONSUMER_AFTER_MARKER,
          CrashPoint.CONSUMER_AFTER_EFFECT_BEFORE_COMMIT,
          CrashPoint.CONSUMER_AFTER_COMMIT_BEFORE_ACK);
  private static final Duration VISIBILITY = Duration.ofMillis(300);

  private final HandlerKit kit;
  private final List<Outcome> outcomes = new CopyOnWriteArrayList<>();

  KitRun(HandlerKit kit) {
    this.kit = kit;
  }

  /** Crashes the worker once at each window, lets the delivery come back; returns failures. */
  List<String> crashWindows() {
    List<String> failures = new ArrayList<>();
    for (CrashPoint window : WINDOWS) {
      outcomes.clear();
      Event event = kit.events.apply(HandlerKit.SEQUENCE.incrementAndGet());
      OnceListener crash = FaultInjector.once(window, kit.consumerId + "/" + event.id().value());
      TableQueueTransport queue = queue();
      try (Once once = once(event, kit.transportWrapper.apply(queue), crash);
          Consumer consumer = consumer(once, event, Duration.ofMillis(100))) {
        publish(queue, event, 1);
        Outcome until =
            window == CrashPoint.CONSUMER_AFTER_COMMIT_BEFORE_ACK ? Outcome.DUPLICATE : null;
        runUntil(
            consumer, until, () -> queue.depth(event.destination(), kit.consumerId).getAsLong());
      }
      judge("crash at " + window.label(), event.id()).ifPresent(failures::add);
    }
    return failures;
  }

  /** Hands one event to {@code concurrency} workers at the same instant; returns failures. */
  List<String> concurrentDuplicates() {
    Event event = kit.events.apply(HandlerKit.SEQUENCE.incrementAndGet());
    TableQueueTransport queue = queue();
    List<Consumer> consumers = new ArrayList<>();
    try (Once once = once(event, kit.transportWrapper.apply(queue), new Collide(kit.concurrency))) {
      for (int i = 0; i < kit.concurrency; i++) {
        consumers.add(consumer(once, event, Duration.ofSeconds(2)));
      }
      publish(queue, event, kit.concurrency);
      runAtOnce(consumers);
    } finally {
      consumers.forEach(Consumer::close);
    }
    String what = kit.concurrency + " concurrent deliveries of one event";
    return judge(what, event.id()).map(List::of).orElse(List.of());
  }

  /** The kit's broker: a table queue in the user's database; the wrapper goes around it. */
  private TableQueueTransport queue() {
    return TableQueueTransport.builder(kit.dataSource).visibilityTimeout(VISIBILITY).build();
  }

  private Once once(Event event, Transport transport, OnceListener listener) {
    OnceBuilder b =
        Once.builder()
            .dataSource(kit.dataSource)
            .transport(transport)
            .destinations(event.destination())
            .listener(listener)
            .listener(new Recorder());
    kit.destinations.forEach(b::destinations);
    if (kit.dialect != null) {
      b.dialect(kit.dialect);
    }
    if (kit.transactions != null) {
      b.transactions(kit.transactions);
    }
    return b.build();
  }

  private Consumer consumer(Once once, Event event, Duration idleWait) {
    return once.consumer(kit.consumerId)
        .subscribe(event.destination(), kit.handler)
        .batchSize(1)
        .idleWait(idleWait)
        .retry(RetryPolicy.builder().backoff(Duration.ofMillis(50), Duration.ofMillis(200)).build())
        .build();
  }

  /**
   * Drops what earlier runs left in the kit's queue, then publishes {@code copies} copies straight
   * to it (the consumer receives them through the wrapper).
   */
  private void publish(TableQueueTransport transport, Event event, int copies) {
    transport.purge(event.destination(), kit.consumerId);
    PublishResult r = transport.publish(Collections.nCopies(copies, event), Duration.ofSeconds(10));
    if (r.confirmed().cardinality() != copies) {
      throw new IllegalStateException("the kit's table queue did not take the event: " + r);
    }
  }

  /**
   * Runs the consumer, restarting it after each crash, until {@code until}, or a crash left the
   * queue empty (a commit that deleted the row: nothing comes back), or the wait is up.
   */
  private void runUntil(Consumer consumer, Outcome until, LongSupplier left) {
    long deadline = System.nanoTime() + kit.redeliveryWait.toNanos();
    boolean crashed = false;
    while (System.nanoTime() < deadline) {
      if (until == null ? outcomes.contains(Outcome.PROCESSED) : outcomes.contains(until)) {
        return;
      }
      if (crashed && left.getAsLong() == 0) {
        return;
      }
      try {
        consumer.runOnce();
      } catch (SimulatedCrash e) {
        crashed = true; // the worker died at the window; the next runOnce is its restart
      }
    }
  }

  private static void runAtOnce(List<Consumer> consumers) {
    ExecutorService pool = Executors.newFixedThreadPool(consumers.size());
    try {
      List<Future<Integer>> running = new ArrayList<>();
      for (Consumer c : consumers) {
        running.add(pool.submit(c::runOnce));
      }
      for (Future<Integer> f : running) {
        f.get(60, TimeUnit.SECONDS);
      }
    } catch (Exception e) {
      throw new IllegalStateException("concurrent workers did not finish: " + e, e);
    } finally {
      pool.shutdownNow();
    }
  }

  /** Empty when the event has exactly one effect and one marker; else what is wrong. */
  private Optional<String> judge(String what, EventId id) {
    try (Connection c = kit.dataSource.getConnection()) {
      long effects = kit.effects.count(c, id);
      long markers = markers(c, id);
      if (effects == 1 && markers == 1) {
        return Optional.empty();
      }
      return Optional.of(
          what
              + ": event "
              + id
              + " has "
              + effects
              + " effects and "
              + markers
              + " markers, expected 1 and 1"
              + hint(effects)
              + " (outcomes "
              + outcomes
              + ")");
    } catch (SQLException e) {
      throw new IllegalStateException("could not count the effects of " + id + ": " + e, e);
    }
  }

  private static String hint(long effects) {
    if (effects == 0) {
      return "; the event was lost: acknowledged before its transaction committed?";
    }
    if (effects > 1) {
      return "; the effect was repeated: written outside the handler's transaction, with a fresh"
          + " idempotency key per attempt, or a marker that does not stop a second worker?";
    }
    return "";
  }

  private long markers(Connection c, EventId id) throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement(
            "SELECT count(*) FROM once_inbox WHERE consumer_id = ? AND event_id = ?")) {
      ps.setString(1, kit.consumerId);
      ps.setString(2, id.value());
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    }
  }

  /** Records the outcomes of this run's deliveries. */
  private final class Recorder implements OnceListener {
    @Override
    public void outcome(ReceivedEvent event, Outcome outcome, Duration took) {
      outcomes.add(outcome);
    }
  }
}
