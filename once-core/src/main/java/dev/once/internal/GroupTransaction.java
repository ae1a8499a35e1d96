package dev.once.internal;

import dev.once.ConsumerConfig;
import dev.once.ReceivedEvent;
import dev.once.StoreException;
import dev.once.Tracing;
import dev.once.internal.DeliveryRunner.Undo;
import dev.once.internal.Isolation.Plan;
import dev.once.spi.Delivery;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The transaction of one group of deliveries (see {@link BatchProcessor}): the markers in one
 * {@code INSERT … ON CONFLICT DO NOTHING}, then the handler of each delivery whose marker this
 * transaction inserted (see {@link DeliveryRunner}), the suspect levels the group clears, and one
 * commit. A failing handler's changes and marker are undone and the others commit together (see
 * {@link #firstUndo}).
 */
final class GroupTransaction {
  private static final int SAVEPOINT_BATCHES_AFTER_FAILURE = 16;

  private final OnceImpl once;
  private final ConsumerConfig config;
  private final Listeners listener;
  private final DeliveryRunner runner;
  private final AtomicInteger savepointBatchesLeft = new AtomicInteger();

  GroupTransaction(OnceImpl once, ConsumerConfig config, DeliveryRunner runner) {
    this.once = once;
    this.config = config;
    this.listener = once.listener();
    this.runner = runner;
  }

  /**
   * Runs and commits the group; returns each delivery's result, or null if the transaction hit a
   * transient conflict and rolled back (its deliveries must come back soon). {@code running[0]} is
   * the delivery whose run is under way, null between runs.
   */
  List<HandledDelivery> commit(
      List<Delivery> deliveries,
      List<ReceivedEvent> events,
      Plan plan,
      List<String> suspectsToClear,
      Delivery[] running,
      Tracing.Span[] spans) {
    Batch batch = new Batch(deliveries, events, plan, suspectsToClear, running, spans);
    Undo undo = firstUndo(deliveries.size());
    while (true) {
      try {
        return commitBatch(batch, undo);
      } catch (DeliveryRunner.RerunWithSavepoints e) {
        batch.failedBefore.put(e.eventId, e.failure);
        if (once.transactions().undoesToMark()) {
          savepointBatchesLeft.set(SAVEPOINT_BATCHES_AFTER_FAILURE);
          undo = Undo.TO_SAVEPOINT;
        } // else each failing handler costs one more run, without it, until none fails
      }
    }
  }

  /** One group's transaction and what it needs. */
  private record Batch(
      List<Delivery> deliveries,
      List<ReceivedEvent> events,
      Plan plan,
      List<String> suspectsToClear,
      Delivery[] running,
      Tracing.Span[] spans, // null: tracing is off
      Map<String, Exception> failedBefore) {
    Batch(
        List<Delivery> deliveries,
        List<ReceivedEvent> events,
        Plan plan,
        List<String> suspectsToClear,
        Delivery[] running,
        Tracing.Span[] spans) {
      this(deliveries, events, plan, suspectsToClear, running, spans, new HashMap<>());
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
    if (!once.transactions().undoesToMark()) {
      return Undo.RERUN_BATCH;
    }
    if (size == 1) { // a rollback on the connection is all it needs, where that undoes all
      return once.transactions().undoesOnConnection() ? Undo.WHOLE_TRANSACTION : Undo.RERUN_BATCH;
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
}
