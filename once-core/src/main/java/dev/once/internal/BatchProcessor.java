package dev.once.internal;

import dev.once.ConsumerConfig;
import dev.once.Outcome;
import dev.once.ReceivedEvent;
import dev.once.StoreException;
import dev.once.internal.DeliveryRunner.Undo;
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

/**
 * Processes one polled batch in one transaction: the batch's markers in one {@code INSERT … ON
 * CONFLICT DO NOTHING}, then the handler of each delivery whose marker this transaction inserted
 * (see {@link DeliveryRunner}). A failing handler's changes and marker are undone and the others
 * commit together (see {@link #firstUndo}). Failures are then recorded in a short transaction of
 * their own, and only after that are the deliveries acknowledged (processed, duplicate, stale,
 * dead-lettered) or returned with a backoff (retry).
 */
final class BatchProcessor {
  private final OnceImpl once;
  private final ConsumerConfig config;
  private final Listeners listener;
  private final Attempts attempts;
  private final DeliveryRunner runner;

  private static final int SAVEPOINT_BATCHES_AFTER_FAILURE = 16;
  private final AtomicInteger savepointBatchesLeft = new AtomicInteger();

  BatchProcessor(OnceImpl once, ConsumerConfig config) {
    this.once = once;
    this.config = config;
    this.listener = once.listener();
    this.attempts = new Attempts(once.dataSource(), once.dialect(), config.consumerId());
    this.runner = new DeliveryRunner(once, config, attempts);
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
    List<Delivery> fresh = new ArrayList<>(held.size());
    List<Delivery> suspects = new ArrayList<>();
    for (Delivery d : held) {
      (isSuspect(d) ? suspects : fresh).add(d);
    }
    for (Delivery d : suspects) {
      handle(receiver, List.of(d), true);
      held.removeIf(h -> h == d);
    }
    if (!fresh.isEmpty()) {
      handle(receiver, fresh, false);
      held.clear();
    }
  }

  /**
   * A delivery that came back: its batch may have crashed the process or thrown an {@link Error}
   * (or failed, or its worker stopped). It runs alone, with its attempt recorded durably before its
   * handler, so that a poison crashes only itself and innocents of its batch are not charged for
   * it.
   */
  private static boolean isSuspect(Delivery d) {
    return !d.isMalformed() && (d.redelivered() || d.deliveryCount() > 1);
  }

  private void handle(Receiver receiver, List<Delivery> deliveries, boolean isolated) {
    long started = System.nanoTime();
    List<ReceivedEvent> events = new ArrayList<>(deliveries.size());
    for (Delivery d : deliveries) {
      events.add(
          new ReceivedEvent(config.consumerId(), d.event(), d.deliveryCount(), d.redelivered()));
    }
    listener.received(events);
    Map<String, Attempts.Known> known = new HashMap<>(attempts.load(deliveries));
    Map<String, Integer> attemptOf = isolated ? startAlone(events.get(0), known) : Map.of();
    List<HandledDelivery> handled = null;
    Map<String, Exception> failedBefore = new HashMap<>();
    Undo undo = firstUndo(deliveries.size());
    for (boolean done = false; !done; ) {
      try {
        handled = commitBatch(deliveries, events, known, attemptOf, undo, failedBefore);
        done = true;
      } catch (DeliveryRunner.RerunWithSavepoints e) {
        failedBefore.put(e.eventId, e.failure);
        if (once.transactions().undoesOnConnection()) {
          savepointBatchesLeft.set(SAVEPOINT_BATCHES_AFTER_FAILURE);
          undo = Undo.TO_SAVEPOINT;
        } // else each failing handler costs one more run, without it, until none fails
      }
    }
    if (handled == null) { // the transaction hit a transient conflict: all come back soon
      receiver.nack(deliveries, config.retry().backoff().initial());
      return;
    }
    listener.committed(events);
    recordFailures(handled, isolated ? known : null);
    acknowledge(receiver, handled, started);
  }

  /**
   * Counts the attempt of a delivery that runs alone before its handler, in a committed
   * transaction: if it kills the process, the count stays. Its attempt is one more than the
   * failures recorded; one that comes back without any recorded failure is charged one attempt for
   * the batch it came from (it may be the poison that crashed it). Returns that attempt number; the
   * known count (in {@code known}) then includes it.
   */
  private Map<String, Integer> startAlone(ReceivedEvent event, Map<String, Attempts.Known> known) {
    String id = event.id().value();
    Attempts.Known k = known.get(id);
    int max = config.retry().maxAttempts();
    int attempt = k == null ? Math.min(2, max) : k.attempts() + 1;
    if (attempt <= max) {
      known.put(id, attempts.start(id, attempt, k, once.config().clock().instant()));
    }
    return Map.of(id, attempt);
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
  private List<HandledDelivery> commitBatch(
      List<Delivery> deliveries,
      List<ReceivedEvent> events,
      Map<String, Attempts.Known> known,
      Map<String, Integer> attemptOf,
      Undo undo,
      Map<String, Exception> failedBefore) {
    List<HandledDelivery> handled = new ArrayList<>(events.size());
    Runnable wakeRelays =
        () -> {
          if (handled.stream().anyMatch(h -> h.published() > 0)) {
            once.outboxCommitted();
          }
        };
    try {
      once.transactions()
          .inTransaction(
              c -> {
                handled.clear();
                runBatch(c, deliveries, events, known, attemptOf, undo, failedBefore, handled);
                return null;
              },
              wakeRelays);
      return handled;
    } catch (SQLException e) {
      if (once.dialect().isTransient(e)) {
        listener.transientRollback(events, e);
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

  private void runBatch(
      Connection c,
      List<Delivery> deliveries,
      List<ReceivedEvent> events,
      Map<String, Attempts.Known> known,
      Map<String, Integer> attemptOf,
      Undo undo,
      Map<String, Exception> failedBefore,
      List<HandledDelivery> handled)
      throws SQLException {
    Set<String> inserted = runner.insertMarkers(c, wellFormed(deliveries, events));
    for (int i = 0; i < events.size(); i++) {
      ReceivedEvent e = events.get(i);
      String id = e.id().value();
      // the same event twice in one batch: only its first delivery acts
      boolean acts = inserted.remove(id);
      handled.add(
          runner.run(
              c,
              deliveries.get(i),
              e,
              known.get(id),
              attemptOf.get(id),
              acts,
              undo,
              failedBefore.get(id)));
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
   * {@code started}: the known attempts of an isolated delivery, whose count already includes it.
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
    attempts.record(failures, attemptOf, started, once.config().clock().instant());
  }

  private void acknowledge(Receiver receiver, List<HandledDelivery> handled, long started) {
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
        receiver.nack(List.of(h.delivery()), config.retry().delay(h.attempt()));
      }
    }
    Duration took = Duration.ofNanos(System.nanoTime() - started);
    for (HandledDelivery h : handled) {
      listener.outcome(h.event(), h.outcome(), took);
    }
  }
}
