package dev.once.internal;

import dev.once.ConsumerConfig;
import dev.once.Outcome;
import dev.once.ReceivedEvent;
import dev.once.StoreException;
import dev.once.Tracing;
import dev.once.internal.DeliveryRunner.Undo;
import dev.once.internal.Isolation.Group;
import dev.once.internal.Isolation.Plan;
import dev.once.spi.Delivery;
import dev.once.spi.Receiver;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Processes one polled batch: fresh deliveries in one transaction, redeliveries that may have
 * crashed their process in groups (see {@link Isolation}). In each transaction the markers go in
 * one {@code INSERT … ON CONFLICT DO NOTHING}, then the handler of each delivery whose marker this
 * transaction inserted (see {@link DeliveryRunner}). A failing handler's changes and marker are
 * undone and the others commit together (see {@link #firstUndo}). Failures are then recorded in a
 * short transaction of their own, and only after that are the deliveries acknowledged (processed,
 * duplicate, stale, dead-lettered) or returned with a backoff (retry).
 *
 * <p>An {@link Error} crashes the worker (see {@link ConsumerImpl}), but first the deliveries it
 * holds are handed back as known returns: the delivery whose handler threw it has the attempt
 * counted, the others are released unsuspected.
 */
final class BatchProcessor {
  private static final Logger log = LoggerFactory.getLogger(BatchProcessor.class);

  private final OnceImpl once;
  private final ConsumerConfig config;
  private final Listeners listener;
  private final Attempts attempts;
  private final DeliveryRunner runner;
  private final Isolation isolation;
  private final AtomicLong progress = new AtomicLong();

  private static final int SAVEPOINT_BATCHES_AFTER_FAILURE = 16;
  private final AtomicInteger savepointBatchesLeft = new AtomicInteger();

  BatchProcessor(OnceImpl once, ConsumerConfig config) {
    this.once = once;
    this.config = config;
    this.listener = once.listener();
    this.attempts = new Attempts(once.dataSource(), once.dialect(), config.consumerId());
    this.runner = new DeliveryRunner(once, config, attempts);
    this.isolation = new Isolation(once, config, attempts, new Returns());
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
    held.addAll(receiver.poll(config.batchSize(), config.pollTimeout(), config.batchLinger()));
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
          handBack(receiver, plan, left, running[0], stage[0] == COMMITTED, e);
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

  /**
   * After an {@link Error} in group {@code left.get(0)}: counts the attempt of the delivery whose
   * run threw it ({@code culprit}, null if none: the Error came before or after the handlers),
   * returns it with the retry delay, and releases every other delivery still held, remembered as
   * what it was. Best effort: what cannot be handed back comes back when the receiver closes.
   */
  private void handBack(
      Receiver receiver,
      Plan plan,
      List<Group> left,
      Delivery culprit,
      boolean committed,
      Error e) {
    isolation.remember(left, plan);
    if (committed) {
      left.get(0).members().forEach(isolation::rememberFresh);
    }
    Integer attempt = culprit == null || culprit.isMalformed() ? null : charge(culprit, plan, e);
    List<Delivery> fresh = new ArrayList<>();
    List<Delivery> suspects = new ArrayList<>();
    for (Group g : left) {
      for (Delivery d : g.members()) {
        if (d != culprit || attempt == null) {
          // a suspect keeps its flag for whoever gets it next; a fresh one is released unflagged
          (g.suspect() && !committed ? suspects : fresh).add(d);
        }
      }
    }
    try {
      if (attempt != null) {
        isolation.rememberFresh(culprit);
        receiver.nack(List.of(culprit), config.retry().delay(attempt));
      }
      if (!fresh.isEmpty()) {
        receiver.release(fresh);
      }
      if (!suspects.isEmpty()) {
        receiver.nack(suspects, Duration.ZERO);
      }
    } catch (RuntimeException failed) {
      log.debug(
          "consumer {}: handing back after a crash failed ({}); they come back anyway",
          config.consumerId(),
          failed.toString());
    }
  }

  /**
   * Counts the attempt of the delivery whose run threw {@code e}, in a short transaction, as a
   * crash does (the last real failure kept; the Error itself if there is none); returns its number,
   * or null if it could not be recorded (it then comes back suspect).
   */
  private Integer charge(Delivery culprit, Plan plan, Error e) {
    String id = culprit.event().id().value();
    Attempts.Known k = plan.known.get(id);
    Integer counted = plan.counted.get(id); // counted already: it ran alone
    int attempt = counted != null ? counted : k == null ? 1 : k.attempts() + 1;
    try {
      attempts.crashed(
          id,
          attempt,
          k,
          counted != null,
          Failure.of(e, culprit.event().payload()),
          once.config().clock().instant());
      progress.incrementAndGet();
      return attempt;
    } catch (RuntimeException failed) {
      log.debug(
          "consumer {}: the crash's attempt was not counted: {}", config.consumerId(), failed);
      return null;
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
    Batch batch = new Batch(deliveries, events, plan, plan.toClear(g), running, spans);
    List<HandledDelivery> handled = null;
    Undo undo = firstUndo(deliveries.size());
    for (boolean done = false; !done; ) {
      try {
        handled = commitBatch(batch, undo);
        done = true;
      } catch (DeliveryRunner.RerunWithSavepoints e) {
        batch.failedBefore.put(e.eventId, e.failure);
        if (once.transactions().undoesOnConnection()) {
          savepointBatchesLeft.set(SAVEPOINT_BATCHES_AFTER_FAILURE);
          undo = Undo.TO_SAVEPOINT;
        } // else each failing handler costs one more run, without it, until none fails
      }
    }
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

  /** One group's transaction and what it needs. */
  private static final class Batch {
    final List<Delivery> deliveries;
    final List<ReceivedEvent> events;
    final Plan plan;
    final List<String> suspectsToClear;
    final Delivery[] running;
    final Tracing.Span[] spans; // null: tracing is off
    final Map<String, Exception> failedBefore = new HashMap<>();

    Batch(
        List<Delivery> deliveries,
        List<ReceivedEvent> events,
        Plan plan,
        List<String> suspectsToClear,
        Delivery[] running,
        Tracing.Span[] spans) {
      this.spans = spans;
      this.deliveries = deliveries;
      this.events = events;
      this.plan = plan;
      this.suspectsToClear = suspectsToClear;
      this.running = running;
    }
  }

  /**
   * A batch first runs without savepoints: a SAVEPOINT per delivery is a round trip each, about a
   * sixth of the pipeline's throughput in once bench, and handlers rarely fail. If one does, the
   * whole transaction rolls back and the batch runs again with a savepoint per handler, and so do
   * this consumer's next {@value #SAVEPOINT_BATCHES_AFTER_FAILURE} batches, so that a run of poison
   * messages does not make every batch run twice.
   */
  private Undo firstUndo(int size) {
    if (!once.transactions().undoesOnConnection()) {
      return Undo.RERUN_BATCH;
    }
    if (size == 1) {
      return Undo.WHOLE_TRANSACTION;
    }
    if (savepointBatchesLeft.get() > 0) {
      savepointBatchesLeft.decrementAndGet();
      return Undo.TO_SAVEPOINT;
    }
    return Undo.RERUN_BATCH;
  }

  /** Each delivery's result, or null if the whole transaction must be tried again. */
  private List<HandledDelivery> commitBatch(Batch batch, Undo undo) {
    List<HandledDelivery> handled = new ArrayList<>(batch.events.size());
    Runnable wakeRelays =
        () -> {
          if (handled.stream().anyMatch(h -> h.published() > 0)) {
            once.outboxCommitted();
          }
        };
    try {
      once.batchTransactions()
          .inTransaction(
              c -> {
                handled.clear();
                runBatch(c, batch, undo, handled);
                return null;
              },
              wakeRelays);
      return handled;
    } catch (SQLException e) {
      if (once.dialect().isTransient(e)) {
        listener.transientRollback(batch.events, e);
        if (!StoreOutage.is(e)) {
          return null; // a conflict: returned to the transport, to run again soon
        }
      }
      // a lost or refused connection: the worker keeps the deliveries and pauses (ConsumerImpl)
      throw new StoreException("consumer " + config.consumerId() + " batch transaction", e);
    } catch (RuntimeException e) {
      throw e;
    } catch (Exception e) { // the work throws nothing else checked
      throw new IllegalStateException("consumer " + config.consumerId() + " batch: " + e, e);
    }
  }

  private void runBatch(Connection c, Batch batch, Undo undo, List<HandledDelivery> handled)
      throws SQLException {
    Set<String> inserted = runner.insertMarkers(c, wellFormed(batch.deliveries, batch.events));
    for (int i = 0; i < batch.events.size(); i++) {
      ReceivedEvent e = batch.events.get(i);
      String id = e.id().value();
      // the same event twice in one batch: only its first delivery acts
      boolean acts = inserted.remove(id);
      batch.running[0] = batch.deliveries.get(i);
      try (Tracing.Scope scope = batch.spans == null ? Tracing.Scope.NONE : batch.spans[i].open()) {
        handled.add(
            runner.run(
                c,
                batch.deliveries.get(i),
                e,
                batch.plan.known.get(id),
                batch.plan.counted.get(id),
                acts,
                undo,
                batch.failedBefore.get(id)));
      }
      batch.running[0] = null;
    }
    if (!batch.suspectsToClear.isEmpty()) { // the group commits: it did not crash its process
      once.dialect().attempts().clearSuspects(c, config.consumerId(), batch.suspectsToClear);
    }
  }

  /** The events of the deliveries that decoded: malformed ones get no marker. */
  private static List<ReceivedEvent> wellFormed(
      List<Delivery> deliveries, List<ReceivedEvent> events) {
    List<ReceivedEvent> out = new ArrayList<>(events.size());
    for (int i = 0; i < events.size(); i++) {
      if (!deliveries.get(i).isMalformed()) {
        out.add(events.get(i));
      }
    }
    return out;
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
