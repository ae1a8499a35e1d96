package dev.once.internal;

import dev.once.ConsumerConfig;
import dev.once.Outcome;
import dev.once.ReceivedEvent;
import dev.once.Tracing;
import dev.once.internal.Isolation.Group;
import dev.once.internal.Isolation.Plan;
import dev.once.spi.Delivery;
import dev.once.spi.Receiver;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Processes one polled batch: fresh deliveries in one transaction, redeliveries that may have
 * crashed their process in groups (see {@link Isolation}), each group in a transaction of its own
 * (see {@link GroupTransaction}). Failures are then recorded in a short transaction of their own,
 * and only after that are the deliveries acknowledged (processed, duplicate, stale, dead-lettered)
 * or returned with a backoff (retry).
 *
 * <p>An {@link Error} crashes the worker (see {@link ConsumerImpl}), but first the deliveries it
 * holds are handed back as known returns (see {@link CrashHandBack}).
 */
final class BatchProcessor {
  private final OnceImpl once;
  private final ConsumerConfig config;
  private final Listeners listener;
  private final Attempts attempts;
  private final Isolation isolation;
  private final GroupTransaction transaction;
  private final CrashHandBack crash;
  private final AtomicLong progress = new AtomicLong();

  BatchProcessor(OnceImpl once, ConsumerConfig config) {
    this.once = once;
    this.config = config;
    this.listener = once.listener();
    this.attempts = new Attempts(once.dataSource(), once.dialect(), config.consumerId());
    this.isolation = new Isolation(once, config, attempts, new Returns());
    this.transaction =
        new GroupTransaction(once, config, new DeliveryRunner(once, config, attempts));
    this.crash = new CrashHandBack(once, config, attempts, isolation, progress);
  }

  /**
   * Commits made so far: batches, recorded failures, raised suspects. An {@link Error} with none
   * since the previous one is a worker that gets nowhere (see {@link ConsumerImpl}).
   */
  long progress() {
    return progress.get();
  }

  int process(Receiver receiver) throws InterruptedException {
    List<Delivery> held = new ArrayList<>();
    return process(receiver, held);
  }

  /**
   * Polls a batch into {@code held} (which must be empty) and handles it; returns its size. If
   * handling fails, {@code held} keeps the deliveries not yet settled, for {@link #handleHeld}.
   */
  int process(Receiver receiver, List<Delivery> held) throws InterruptedException {
    held.addAll(receiver.poll(config.batchSize(), config.idleWait(), config.batchLinger()));
    int polled = held.size();
    if (polled == 0) {
      isolation.sweep();
    }
    handleHeld(receiver, held);
    return polled;
  }

  /**
   * Handles the deliveries in {@code held}, removing each once it is settled (acknowledged, or
   * returned for a retry): if this throws, the ones left were not, and may be handled again on the
   * same receiver.
   */
  void handleHeld(Receiver receiver, List<Delivery> held) {
    if (held.isEmpty()) {
      return;
    }
    Plan plan = isolation.plan(receiver, held);
    List<Group> groups = plan.groups;
    for (int i = 0; i < groups.size(); i++) {
      Group g = groups.get(i);
      Delivery[] running = new Delivery[1];
      int[] stage = new int[1]; // NONE, COMMITTED or SETTLING
      try {
        if (isolation.prepare(g, plan)) {
          progress.incrementAndGet();
        }
        handle(receiver, g, plan, running, stage);
      } catch (Error e) {
        List<Group> left = groups.subList(stage[0] == SETTLING ? i + 1 : i, groups.size());
        if (!left.isEmpty()) {
          crash.handBack(receiver, plan, left, running[0], stage[0] == COMMITTED, e);
        }
        throw e;
      } catch (RuntimeException e) {
        // kept for a retry after a lost connection, or handed back as the receiver closes
        isolation.remember(groups.subList(stage[0] == NONE ? i : i + 1, groups.size()), plan);
        if (stage[0] != NONE) {
          g.members().forEach(isolation::rememberFresh);
        }
        throw e;
      }
      for (Delivery d : g.members()) {
        held.removeIf(h -> h == d);
      }
    }
  }

  /** How far a group got: {@code stage} of {@link #handle}. */
  private static final int NONE = 0;

  private static final int COMMITTED = 1;
  private static final int SETTLING = 2;

  private void handle(Receiver receiver, Group g, Plan plan, Delivery[] running, int[] stage) {
    long started = System.nanoTime();
    List<Delivery> deliveries = g.members();
    List<ReceivedEvent> events = new ArrayList<>(deliveries.size());
    for (Delivery d : deliveries) {
      events.add(
          new ReceivedEvent(config.consumerId(), d.event(), d.deliveryCount(), d.redelivered()));
    }
    listener.received(events);
    // one span per delivery attempt, or null when tracing is off (nothing to allocate)
    Tracing.Span[] spans = Spans.start(once.tracing(), once.transport(), events, Tracing::process);
    try {
      handle(receiver, g, plan, running, stage, started, events, spans);
    } catch (RuntimeException | Error e) {
      endSpans(spans, null, e);
      throw e;
    }
  }

  /** Ends the spans still open: with the outcome, or the error that ended the batch. */
  private static void endSpans(Tracing.Span[] spans, Outcome outcome, Throwable error) {
    if (spans == null) {
      return;
    }
    for (int i = 0; i < spans.length; i++) {
      Tracing.Span span = spans[i];
      if (span != null) {
        spans[i] = null;
        if (error != null) {
          span.error(error);
        } else {
          span.outcome(outcome);
        }
        span.end();
      }
    }
  }

  private void handle(
      Receiver receiver,
      Group g,
      Plan plan,
      Delivery[] running,
      int[] stage,
      long started,
      List<ReceivedEvent> events,
      Tracing.Span[] spans) {
    List<Delivery> deliveries = g.members();
    List<HandledDelivery> handled =
        transaction.commit(deliveries, events, plan, plan.toClear(g), running, spans);
    if (handled == null) { // the transaction hit a transient conflict: all come back soon
      isolation.remember(List.of(g), plan);
      receiver.nack(deliveries, config.retry().backoff().initial());
      endSpans(spans, Outcome.RETRY, null);
      return;
    }
    stage[0] = COMMITTED;
    progress.incrementAndGet();
    listener.committed(events);
    stage[0] = SETTLING;
    recordFailures(handled, plan.started());
    acknowledge(receiver, handled, started, spans);
  }

  /**
   * {@code started}: the known attempts of the deliveries whose attempt was counted before their
   * run (they ran alone), whose count already includes it.
   */
  private void recordFailures(List<HandledDelivery> handled, Map<String, Attempts.Known> started) {
    Map<String, Failure> failures = new LinkedHashMap<>();
    Map<String, Integer> attemptOf = new LinkedHashMap<>();
    for (HandledDelivery h : handled) {
      if (h.outcome() == Outcome.RETRY) {
        failures.put(h.event().id().value(), h.failure());
        attemptOf.put(h.event().id().value(), h.attempt());
      }
    }
    if (!failures.isEmpty()) {
      attempts.record(failures, attemptOf, started, once.config().clock().instant());
      progress.incrementAndGet();
    }
  }

  private void acknowledge(
      Receiver receiver, List<HandledDelivery> handled, long started, Tracing.Span[] spans) {
    List<Delivery> done = new ArrayList<>();
    for (HandledDelivery h : handled) {
      if (h.outcome() != Outcome.RETRY) {
        done.add(h.delivery());
      }
    }
    if (!done.isEmpty()) {
      receiver.ack(done);
    }
    for (HandledDelivery h : handled) {
      if (h.outcome() == Outcome.RETRY) {
        isolation.rememberFresh(h.delivery()); // it failed, known: not a suspect when it is back
        receiver.nack(List.of(h.delivery()), config.retry().delay(h.attempt()));
      }
    }
    Duration took = Duration.ofNanos(System.nanoTime() - started);
    for (int i = 0; i < handled.size(); i++) {
      HandledDelivery h = handled.get(i);
      listener.outcome(h.event(), h.outcome(), took);
      if (spans != null) {
        spans[i].outcome(h.outcome());
        spans[i].end();
        spans[i] = null;
      }
    }
  }
}
