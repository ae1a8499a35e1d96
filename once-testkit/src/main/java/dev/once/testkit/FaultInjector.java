package dev.once.testkit;

import dev.once.Event;
import dev.once.OnceListener;
import dev.once.OperationResult;
import dev.once.OperationState;
import dev.once.ReceivedEvent;
import dev.once.RequestKey;
import java.nio.charset.StandardCharsets;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A listener that crashes the worker (throws {@link SimulatedCrash}) at chosen crash windows.
 *
 * <p>{@link #random} crashes each unit of work — a producer transaction, a consumer batch, a relay
 * batch — at each chosen window with the given probability. For the windows inside a consumer batch
 * (after a marker, after an effect) it also picks the delivery of the batch at which the crash
 * happens. Every decision is a function of (seed, window, event id, how often that event reached
 * the window before), not of thread timing, so a seed crashes the same events. For the operation
 * windows each attempt at an operation is a unit of work, decided on its own: the operation id
 * stands in for the event id.
 *
 * <p>{@link #once} and {@link #always} aim at one event or at every event, for tests.
 */
public final class FaultInjector implements OnceListener {
  private final Set<CrashPoint> points;
  private final Aim aim;

  /** Set for random injection: in-batch windows are planned per batch from this seed. */
  private final Long randomBatches;

  private final Map<String, AtomicInteger> visits = new ConcurrentHashMap<>();
  private final Map<CrashPoint, AtomicLong> crashes = new EnumMap<>(CrashPoint.class);
  private final ThreadLocal<Map<CrashPoint, String>> batchPlan =
      ThreadLocal.withInitial(() -> new EnumMap<>(CrashPoint.class));

  /** Decides, for a window and a unit of work, whether to crash. */
  private interface Aim {
    boolean crash(CrashPoint point, String eventId, int previousVisits);
  }

  private FaultInjector(Set<CrashPoint> points, Aim aim, Long randomBatches) {
    this.points = EnumSet.copyOf(points);
    this.aim = aim;
    this.randomBatches = randomBatches;
    for (CrashPoint p : CrashPoint.values()) {
      crashes.put(p, new AtomicLong());
    }
  }

  /** Crashes at each of {@code points} with probability {@code rate} per unit of work. */
  public static FaultInjector random(long seed, double rate, Set<CrashPoint> points) {
    if (!(rate >= 0 && rate <= 1)) {
      throw new IllegalArgumentException("crash rate must be between 0 and 1, was " + rate);
    }
    return new FaultInjector(
        points, (point, id, previous) -> unit(seed, point, id, previous) < rate, seed);
  }

  /** Crashes the first time {@code eventId} reaches {@code point}, and never again. */
  public static FaultInjector once(CrashPoint point, String eventId) {
    return new FaultInjector(
        EnumSet.of(point), (p, id, previous) -> id.equals(eventId) && previous == 0, null);
  }

  /** Crashes every time any event reaches {@code point}: a worker that never gets past it. */
  public static FaultInjector always(CrashPoint point) {
    return new FaultInjector(EnumSet.of(point), (p, id, previous) -> true, null);
  }

  /** A number in [0, 1) from (seed, point, event, visit): FNV-1a then a SplitMix64 finish. */
  static double unit(long seed, CrashPoint point, String eventId, int previousVisits) {
    long h = seed * 0x9E3779B97F4A7C15L + point.ordinal();
    for (byte b : eventId.getBytes(StandardCharsets.UTF_8)) {
      h = (h ^ b) * 0x100000001B3L;
    }
    h += previousVisits * 0xBF58476D1CE4E5B9L;
    h = (h ^ (h >>> 30)) * 0xBF58476D1CE4E5B9L;
    h = (h ^ (h >>> 27)) * 0x94D049BB133111EBL;
    h = h ^ (h >>> 31);
    return (h >>> 11) * 0x1.0p-53;
  }

  private int visit(CrashPoint point, String eventId) {
    return visits
        .computeIfAbsent(point.ordinal() + "|" + eventId, k -> new AtomicInteger())
        .getAndIncrement();
  }

  /** Crash here if aimed at: decided on the unit's (first) event id. */
  private void maybeCrash(CrashPoint point, String eventId) {
    if (points.contains(point) && aim.crash(point, eventId, visit(point, eventId))) {
      crash(point, eventId);
    }
  }

  private void crash(CrashPoint point, String eventId) {
    crashes.get(point).incrementAndGet();
    throw new SimulatedCrash(point, eventId);
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
  public void beforeRequestCommit(RequestKey key) {
    maybeCrash(CrashPoint.API_BEFORE_COMMIT, key.toString());
  }

  @Override
  public void requestCommitted(RequestKey key) {
    maybeCrash(CrashPoint.API_AFTER_COMMIT_BEFORE_RESPONSE, key.toString());
  }

  @Override
  public void beforeProducerCommit(List<Event> events) {
    if (!events.isEmpty()) {
      maybeCrash(CrashPoint.PRODUCER_BEFORE_COMMIT, events.get(0).id().value());
    }
  }

  @Override
  public void received(List<ReceivedEvent> batch) {
    if (batch.isEmpty()) {
      return;
    }
    maybeCrash(CrashPoint.CONSUMER_BEFORE_TRANSACTION, key(batch.get(0)));
    if (randomBatches != null) {
      planBatch(batch);
    }
  }

  /** Random mode: whether, and at which delivery, this batch dies inside its transaction. */
  private void planBatch(List<ReceivedEvent> batch) {
    Map<CrashPoint, String> plan = batchPlan.get();
    plan.clear();
    String first = key(batch.get(0));
    for (CrashPoint p :
        List.of(CrashPoint.CONSUMER_AFTER_MARKER, CrashPoint.CONSUMER_AFTER_EFFECT_BEFORE_COMMIT)) {
      int previous = visit(p, first);
      if (points.contains(p) && aim.crash(p, first, previous)) {
        double at = unit(randomBatches + 1, p, first, previous);
        plan.put(p, key(batch.get((int) (at * batch.size()))));
      }
    }
  }

  private void inBatch(CrashPoint point, ReceivedEvent event) {
    if (randomBatches == null) {
      maybeCrash(point, key(event));
    } else if (key(event).equals(batchPlan.get().get(point))) {
      batchPlan.get().remove(point);
      crash(point, key(event));
    }
  }

  @Override
  public void markerInserted(ReceivedEvent event) {
    inBatch(CrashPoint.CONSUMER_AFTER_MARKER, event);
  }

  @Override
  public void handled(ReceivedEvent event) {
    inBatch(CrashPoint.CONSUMER_AFTER_EFFECT_BEFORE_COMMIT, event);
  }

  @Override
  public void committed(List<ReceivedEvent> events) {
    if (!events.isEmpty()) {
      maybeCrash(CrashPoint.CONSUMER_AFTER_COMMIT_BEFORE_ACK, key(events.get(0)));
    }
  }

  @Override
  public void published(List<Event> events) {
    if (!events.isEmpty()) {
      maybeCrash(CrashPoint.RELAY_AFTER_PUBLISH_BEFORE_MARK_SENT, events.get(0).id().value());
    }
  }

  @Override
  public void operationKeyStored(OperationResult operation) {
    maybeCrash(CrashPoint.OPERATION_KEY_STORED_BEFORE_CALL, operation.operationId());
  }

  @Override
  public void operationAnswered(OperationResult operation, OperationState answer) {
    if (answer == OperationState.SUCCEEDED) {
      maybeCrash(
          CrashPoint.OPERATION_PROVIDER_ACCEPTED_BEFORE_RESULT_STORED, operation.operationId());
    }
  }

  private static String key(ReceivedEvent event) {
    return event.consumerId() + "/" + event.id().value();
  }
}
