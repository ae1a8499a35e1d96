package dev.once.internal.consumer;

import dev.once.ConsumerConfig;
import dev.once.ReceivedEvent;
import dev.once.StoreException;
import dev.once.Tracing;
import dev.once.internal.DataSourceTransactions;
import dev.once.internal.StoreOutage;
import dev.once.internal.consumer.DeliveryRunner.Undo;
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
 * The transaction of one group of deliveries (see {@link Pipeline}): the markers in one {@code
 * INSERT … ON CONFLICT DO NOTHING}, then the handler of each delivery whose marker this transaction
 * inserted (see {@link DeliveryRunner}), the suspect levels the group clears, the acknowledgement
 * where the transport takes it in this transaction ({@link Settlement#settleInTransaction}), and
 * one commit. A failing handler's changes and marker are undone and the others commit together (see
 * {@link #firstUndo}). Returns what came of each delivery, or that a conflict rolled it back.
 */
final class GroupTransaction {
  private static final int SAVEPOINT_BATCHES_AFTER_FAILURE = 16;

  /** What a group's transaction came to: each delivery's result, or a transient conflict. */
  record Result(List<HandledDelivery> handled) {
    static final Result CONFLICT = new Result(null);

    boolean conflict() {
      return handled == null;
    }
  }

  /**
   * A handler ran, an {@link Error} came out of its run (its own, or a crash point's): the worker
   * crashes, and this delivery is the one to charge. The Error is the cause.
   */
  static final class DeliveryCrashed extends Error {
    final Delivery delivery;

    DeliveryCrashed(Delivery delivery, Error cause) {
      super(null, cause, false, false); // no message: the cause's may quote a payload
      this.delivery = delivery;
    }
  }

  /**
   * What this class throws out of the runner's work to make it roll back (its contract: the work
   * throws, the runner rolls back); caught again here, never seen outside.
   */
  private static final class RollBack extends RuntimeException {
    final HandledDelivery failed;

    RollBack(HandledDelivery failed) {
      super(null, null, false, false);
      this.failed = failed;
    }
  }

  private final ConsumerContext context;
  private final ConsumerConfig config;
  private final DeliveryRunner runner;
  private final AtomicInteger savepointBatchesLeft = new AtomicInteger();

  /**
   * Whether the runner commits right after the work with nothing in between, and sends nothing when
   * the work's last statement committed ({@link DataSourceTransactions}, Once's own): the batch's
   * acknowledgement may then commit it in its round trip. Not a framework's runner, which may have
   * work of its own to do before its commit (a JPA flush).
   */
  private final boolean commitsAfterWork;

  GroupTransaction(ConsumerContext context, ConsumerConfig config, DeliveryRunner runner) {
    this.context = context;
    this.config = config;
    this.runner = runner;
    this.commitsAfterWork = context.transactions() instanceof DataSourceTransactions;
  }

  /**
   * One group's transaction and what it needs; {@code settlement} acknowledges in it where the
   * transport can.
   */
  record Batch(
      Group group,
      List<ReceivedEvent> events,
      Plan plan,
      Tracing.Span[] spans, // null: tracing is off
      Settlement settlement) {

    List<Delivery> deliveries() {
      return group.members();
    }
  }

  /**
   * Runs and commits the group. A handler that fails where its transaction cannot go on rolls the
   * whole run back; the group runs again, that handler's failure taken as its result.
   */
  Result commit(Batch batch) {
    Map<String, Exception> failedBefore = Map.of(); // none until a handler fails
    Undo undo = firstUndo(batch.deliveries().size());
    while (true) {
      try {
        return commitOnce(batch, undo, failedBefore);
      } catch (RollBack r) {
        if (failedBefore.isEmpty()) {
          failedBefore = new HashMap<>();
        }
        failedBefore.put(r.failed.eventId(), r.failed.error());
        if (context.transactions().undoesToMark()) {
          savepointBatchesLeft.set(SAVEPOINT_BATCHES_AFTER_FAILURE);
          undo = Undo.TO_SAVEPOINT;
        } // else each failing handler costs one more run, without it, until none fails
      }
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
    if (!context.transactions().undoesToMark()) {
      return Undo.RERUN_BATCH;
    }
    if (size == 1) { // a rollback on the connection is all it needs, where that undoes all
      return context.transactions().undoesOnConnection()
          ? Undo.WHOLE_TRANSACTION
          : Undo.RERUN_BATCH;
    }
    if (savepointBatchesLeft.get() > 0) {
      savepointBatchesLeft.decrementAndGet();
      return Undo.TO_SAVEPOINT;
    }
    return Undo.RERUN_BATCH;
  }

  private Result commitOnce(Batch batch, Undo undo, Map<String, Exception> failedBefore) {
    List<HandledDelivery> handled = new ArrayList<>(batch.events().size());
    Runnable afterCommit =
        () -> {
          batch.settlement().committedInTransaction(handled);
          wakeRelays(handled);
        };
    try {
      context
          .transactions()
          .inTransaction(
              c -> {
                handled.clear();
                return handled.addAll(run(c, batch, undo, failedBefore));
              },
              afterCommit);
      return new Result(handled);
    } catch (SQLException e) {
      return conflict(batch, e);
    } catch (RuntimeException e) {
      throw e;
    } catch (Exception e) { // the work throws nothing else checked
      throw new IllegalStateException("consumer " + config.consumerId() + " batch: " + e, e);
    }
  }

  /**
   * After the commit: wakes the relay when a handler wrote to the outbox, the queue's receivers
   * when one enqueued (a loop: a stream here was a consumer's allocation per batch).
   */
  private void wakeRelays(List<HandledDelivery> handled) {
    boolean published = false;
    boolean enqueued = false;
    for (HandledDelivery h : handled) {
      published |= h.published() > 0;
      enqueued |= h.enqueued() > 0;
    }
    if (published) {
      context.outboxCommitted().run();
    }
    if (enqueued) {
      context.queueCommitted().run();
    }
  }

  /** A transient conflict rolled the transaction back: the group comes back soon. */
  private Result conflict(Batch batch, SQLException e) {
    if (context.dialect().isTransient(e)) {
      context.listener().transientRollback(batch.events(), e);
      if (!StoreOutage.is(e)) {
        return Result.CONFLICT;
      }
    }
    // a lost or refused connection: the worker keeps the deliveries and pauses (Worker)
    throw new StoreException("consumer " + config.consumerId() + " batch transaction", e);
  }

  /** The group's work in {@code c}: each delivery's result, in order. */
  private List<HandledDelivery> run(
      Connection c, Batch batch, Undo undo, Map<String, Exception> failedBefore)
      throws SQLException {
    List<Delivery> deliveries = batch.deliveries();
    Set<String> inserted = runner.insertMarkers(c, wellFormed(deliveries, batch.events()));
    List<HandledDelivery> handled = new ArrayList<>(deliveries.size());
    for (int i = 0; i < deliveries.size(); i++) {
      // the same event twice in one batch: only its first delivery acts
      boolean acts = inserted.remove(batch.events().get(i).id().value());
      HandledDelivery h = runOne(c, batch, i, acts, undo, failedBefore);
      if (h.undoneWhole()) {
        throw new RollBack(h);
      }
      handled.add(h);
    }
    List<String> suspects = batch.plan().toClear(batch.group());
    if (!suspects.isEmpty()) { // the group commits: it did not crash its process
      context.dialect().attempts().clearSuspects(c, config.consumerId(), suspects);
    }
    // last: no savepoint undoes it; on Once's own runner it may commit the transaction too, in
    // its round trip (the runner's commit() after it then sends nothing)
    batch.settlement().settleInTransaction(c, handled, commitsAfterWork);
    return handled;
  }

  /** Runs delivery {@code i} in its span's scope; an Error out of it names the delivery. */
  private HandledDelivery runOne(
      Connection c, Batch batch, int i, boolean acts, Undo undo, Map<String, Exception> failed)
      throws SQLException {
    Delivery d = batch.deliveries().get(i);
    ReceivedEvent e = batch.events().get(i);
    String id = e.id().value();
    Plan plan = batch.plan();
    try (Tracing.Scope scope =
        batch.spans() == null ? Tracing.Scope.NONE : batch.spans()[i].open()) {
      return runner.run(
          c, d, e, plan.known.get(id), plan.counted.get(id), acts, undo, failed.get(id));
    } catch (Error crash) {
      throw new DeliveryCrashed(d, crash);
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
