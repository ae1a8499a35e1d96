package dev.once.testkit;

import dev.once.Event;
import dev.once.OnceListener;
import dev.once.OperationResult;
import dev.once.OperationState;
import dev.once.ReceivedEvent;
import java.nio.charset.StandardCharsets;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiPredicate;

/**
 * A listener that crashes the worker (throws {@link SimulatedCrash}) at chosen crash windows.
 *
 * <p>Whether it crashes is a function of (seed, window, event id, how often this event reached this
 * window before) — not of thread timing — so the same seed crashes the same events. For the
 * batch-level windows (after commit, after publish) the first event of the batch decides. For the
 * operation windows the operation id stands in for the event id.
 */
public final class FaultInjector implements OnceListener {
  private final BiPredicate<CrashPoint, Visit> decision;
  private final Set<CrashPoint> points;
  private final Map<String, AtomicInteger> visits = new ConcurrentHashMap<>();
  private final Map<CrashPoint, AtomicLong> crashes = new EnumMap<>(CrashPoint.class);

  /** The event and how many times before it reached the window. */
  public record Visit(String eventId, int previousVisits) {}

  private FaultInjector(Set<CrashPoint> points, BiPredicate<CrashPoint, Visit> decision) {
    this.points = EnumSet.copyOf(points);
    this.decision = decision;
    for (CrashPoint p : CrashPoint.values()) {
      crashes.put(p, new AtomicLong());
    }
  }

  /** Crashes at each of {@code points} with probability {@code rate}, reproducibly per seed. */
  public static FaultInjector random(long seed, double rate, Set<CrashPoint> points) {
    if (rate < 0 || rate > 1) {
      throw new IllegalArgumentException("crash rate must be between 0 and 1, was " + rate);
    }
    return new FaultInjector(points, (point, visit) -> unit(seed, point, visit) < rate);
  }

  /** Crashes the first time {@code eventId} reaches {@code point}, and never again. */
  public static FaultInjector once(CrashPoint point, String eventId) {
    return new FaultInjector(
        EnumSet.of(point),
        (p, visit) -> visit.eventId().equals(eventId) && visit.previousVisits() == 0);
  }

  /** Crashes every time any event reaches {@code point}: a worker that can never get past it. */
  public static FaultInjector always(CrashPoint point) {
    return new FaultInjector(EnumSet.of(point), (p, visit) -> true);
  }

  /** A number in [0, 1) from (seed, point, event, visit): SplitMix64 over a string hash. */
  static double unit(long seed, CrashPoint point, Visit visit) {
    long h = seed * 0x9E3779B97F4A7C15L + point.ordinal();
    for (byte b : visit.eventId().getBytes(StandardCharsets.UTF_8)) {
      h = (h ^ b) * 0x100000001B3L;
    }
    h += visit.previousVisits() * 0xBF58476D1CE4E5B9L;
    h = (h ^ (h >>> 30)) * 0xBF58476D1CE4E5B9L;
    h = (h ^ (h >>> 27)) * 0x94D049BB133111EBL;
    h = h ^ (h >>> 31);
    return (h >>> 11) * 0x1.0p-53;
  }

  private void maybeCrash(CrashPoint point, String eventId) {
    if (!points.contains(point)) {
      return;
    }
    int previous =
        visits
            .computeIfAbsent(point.ordinal() + "|" + eventId, k -> new AtomicInteger())
            .getAndIncrement();
    if (decision.test(point, new Visit(eventId, previous))) {
      crashes.get(point).incrementAndGet();
      throw new SimulatedCrash(point, eventId);
    }
  }

  /** Crashes injected so far, per window. */
  public Map<CrashPoint, Long> crashes() {
    Map<CrashPoint, Long> copy = new EnumMap<>(CrashPoint.class);
    crashes.forEach((p, n) -> copy.put(p, n.get()));
    return copy;
  }

  public long totalCrashes() {
    return crashes.values().stream().mapToLong(AtomicLong::get).sum();
  }

  @Override
  public void beforeProducerCommit(List<Event> events) {
    if (!events.isEmpty()) {
      maybeCrash(CrashPoint.PRODUCER_BEFORE_COMMIT, events.get(0).id().value());
    }
  }

  @Override
  public void received(ReceivedEvent event) {
    maybeCrash(CrashPoint.CONSUMER_BEFORE_TRANSACTION, key(event));
  }

  @Override
  public void markerInserted(ReceivedEvent event) {
    maybeCrash(CrashPoint.CONSUMER_AFTER_MARKER, key(event));
  }

  @Override
  public void handled(ReceivedEvent event) {
    maybeCrash(CrashPoint.CONSUMER_AFTER_EFFECT, key(event));
  }

  @Override
  public void committed(List<ReceivedEvent> events) {
    if (!events.isEmpty()) {
      maybeCrash(CrashPoint.CONSUMER_AFTER_COMMIT, key(events.get(0)));
    }
  }

  @Override
  public void published(List<Event> events) {
    if (!events.isEmpty()) {
      maybeCrash(CrashPoint.RELAY_AFTER_PUBLISH, events.get(0).id().value());
    }
  }

  @Override
  public void operationKeyStored(OperationResult operation) {
    maybeCrash(CrashPoint.OPERATION_KEY_STORED_BEFORE_CALL, operation.operationId());
  }

  @Override
  public void operationAnswered(OperationResult operation, OperationState answer) {
    if (answer == OperationState.SUCCEEDED) {
      maybeCrash(CrashPoint.OPERATION_ACCEPTED_BEFORE_RESULT_STORED, operation.operationId());
    }
  }

  private static String key(ReceivedEvent event) {
    return event.consumerId() + "/" + event.id().value();
  }
}
