package dev.once.internal.consumer;

import dev.once.ConsumerConfig;
import dev.once.Outcome;
import dev.once.ReceivedEvent;
import dev.once.RetryPolicy;
import dev.once.StoreException;
import dev.once.Tracing;
import dev.once.internal.DeadLetterWriter;
import dev.once.internal.Failure;
import dev.once.internal.LogContext;
import dev.once.internal.StoreOutage;
import dev.once.internal.TxImpl;
import dev.once.spi.Delivery;
import dev.once.spi.TransactionRunner;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs one delivery inside the batch transaction: marker, handler, and the retry decision. An event
 * whose attempts are used up is dead-lettered in the same transaction instead of handled, and its
 * marker rolled back, so a replay can process it later.
 */
final class DeliveryRunner {
  private static final Logger log = LoggerFactory.getLogger(DeliveryRunner.class);

  private final ConsumerContext context;
  private final ConsumerConfig config;
  private final RetryPolicy policy;
  private final Attempts attempts;
  private final DeadLetterWriter deadLetters;

  DeliveryRunner(ConsumerContext context, ConsumerConfig config, Attempts attempts) {
    this.context = context;
    this.config = config;
    this.policy = config.retry();
    this.attempts = attempts;
    this.deadLetters = new DeadLetterWriter(context.dialect());
  }

  /**
   * Inserts the markers of a whole batch in one statement, in event-id order (so that workers
   * holding overlapping batches never wait for each other in a cycle), and returns the ids this
   * transaction inserted. A concurrent transaction that inserted the same marker first makes this
   * statement wait for its end; if it committed, the id is not returned here. It is the first
   * statement of the transaction: the bounds on the transaction's waits go with it (one round trip
   * where the dialect can).
   */
  Set<String> insertMarkers(Connection c, List<ReceivedEvent> events) throws SQLException {
    return context
        .dialect()
        .store()
        .insertMarkers(c, context.batchWaits(), config.consumerId(), distinctSorted(events));
  }

  /**
   * The events' ids, sorted, each once; without a stream (its pipeline, lambdas and copies were a
   * tenth of a consumer's allocations per event at a paced rate, one event a batch).
   */
  static List<String> distinctSorted(List<ReceivedEvent> events) {
    String[] ids = new String[events.size()];
    for (int i = 0; i < ids.length; i++) {
      ids[i] = events.get(i).id().value();
    }
    Arrays.sort(ids);
    int distinct = 0;
    for (String id : ids) {
      if (distinct == 0 || !ids[distinct - 1].equals(id)) {
        ids[distinct++] = id;
      }
    }
    return Arrays.asList(ids).subList(0, distinct);
  }

  /** What a failing handler undoes. */
  enum Undo {
    /** Back to a savepoint taken just before the handler, and its marker deleted. */
    TO_SAVEPOINT,
    /** The whole transaction: the batch has this one delivery. */
    WHOLE_TRANSACTION,
    /**
     * The whole transaction: the handler's result is {@link HandledDelivery#undoneWhole} and the
     * batch runs again, with {@link #TO_SAVEPOINT} where the runner can.
     */
    RERUN_BATCH
  }

  /**
   * A handler ended by the interrupt of {@code Consumer.close()} (Once interrupts its workers only
   * to stop them): the stop, not a failure of the handler. The group's transaction rolls back and
   * the worker hands its deliveries back unrun ({@code Receiver.release}), none charged an attempt,
   * none suspected by the next process.
   */
  static final class WorkerStopped extends RuntimeException {
    WorkerStopped(String consumerId, ReceivedEvent event, Exception cause) {
      super("consumer " + consumerId + " stopped while running " + event.id().value(), cause);
    }

    /**
     * Whether {@code e} is the interrupt of this thread: an InterruptedException in its causes, not
     * under an ExecutionException (another thread's interrupt), or the interrupt flag still set.
     */
    static boolean by(Throwable e) {
      for (Throwable t = e;
          t != null && !(t instanceof java.util.concurrent.ExecutionException);
          t = t.getCause() == t ? null : t.getCause()) {
        if (t instanceof InterruptedException
            || t instanceof java.io.InterruptedIOException
                && !(t instanceof java.net.SocketTimeoutException)
            || t instanceof java.nio.channels.ClosedByInterruptException) {
          return true;
        }
      }
      return Thread.currentThread().isInterrupted();
    }
  }

  /**
   * Runs one delivery whose marker this transaction has (or has not) just inserted. If the handler
   * fails, {@code undo} says what goes: back to a savepoint taken before it (and the marker
   * removed), so that the others still commit and this event can be tried again; or the whole
   * transaction ({@link HandledDelivery#undoneWhole}: the caller rolls it back). A successful
   * delivery's savepoint is left unreleased: releasing would cost a round trip and changes nothing
   * at commit.
   *
   * @param counted the attempt of a delivery run alone, recorded before (see {@link Isolation});
   *     the broker's delivery count is not an attempt: a cut connection or a bisection round raises
   *     it too
   * @param failedBefore what its handler threw in a rolled-back run of this batch, or null
   */
  HandledDelivery run(
      Connection c,
      Delivery d,
      ReceivedEvent event,
      Attempts.Known known,
      Integer counted,
      boolean markerInserted,
      Undo undo,
      Exception failedBefore)
      throws SQLException {
    int attempt = counted != null ? counted : known == null ? 1 : known.attempts() + 1;
    if (d.isMalformed()) { // retrying cannot fix it: dead-lettered on its first delivery
      Failure failure = Failure.malformed(d.malformed());
      deadLetter(c, event, 1, known, failure);
      return HandledDelivery.dead(d, event, 1, failure);
    }
    if (!markerInserted) {
      clearKnown(c, event, known);
      return HandledDelivery.done(d, event, Outcome.DUPLICATE, attempt);
    }
    if (attempt > policy.maxAttempts()) {
      return exhausted(c, d, event, attempt, known);
    }
    if (failedBefore != null) { // this handler already failed in a rolled-back run of the batch
      deleteMarker(c, event);
      return handlerFailed(c, d, event, attempt, known, failedBefore);
    }
    return handle(c, d, event, attempt, known, undo);
  }

  private HandledDelivery exhausted(
      Connection c, Delivery d, ReceivedEvent event, int attempt, Attempts.Known known)
      throws SQLException {
    deleteMarker(c, event);
    Failure failure = Failure.exhausted(attempt - 1, known == null ? null : known.last());
    deadLetter(c, event, attempt - 1, known, failure);
    return HandledDelivery.dead(d, event, attempt - 1, failure);
  }

  /** Calls the handler, with a mark before it where {@code undo} asks for one. */
  private HandledDelivery handle(
      Connection c, Delivery d, ReceivedEvent event, int attempt, Attempts.Known known, Undo undo)
      throws SQLException {
    context.listener().markerInserted(event);
    TransactionRunner.Mark sp = undo == Undo.TO_SAVEPOINT ? context.transactions().mark(c) : null;
    TxImpl tx = context.newTx().apply(c);
    try {
      config.handler().handle(tx, event);
    } catch (Exception e) {
      notTheHandlers(c, event, e);
      if (undo == Undo.RERUN_BATCH || !undo(c, sp, event)) {
        // the transaction cannot go on: it is rolled back whole and the batch runs again
        return HandledDelivery.failed(d, event, Outcome.RETRY, attempt, null, e)
            .withTransactionUndone();
      }
      return handlerFailed(c, d, event, attempt, known, e);
    }
    context.listener().handled(event);
    clearKnown(c, event, known);
    Outcome outcome = tx.isStale() ? Outcome.STALE : Outcome.PROCESSED;
    return HandledDelivery.processed(d, event, outcome, attempt, tx.outboxRows(), tx.enqueued());
  }

  /**
   * Throws when what ended the handler is not its own failure: the database ended the session under
   * it, or the consumer is closing.
   */
  private void notTheHandlers(Connection c, ReceivedEvent event, Exception e) {
    SQLException lost = StoreOutage.lostConnection(e, c);
    if (lost != null) {
      throw new StoreException(
          "consumer " + config.consumerId() + " transaction (its session ended)", lost);
    }
    if (WorkerStopped.by(e)) {
      throw new WorkerStopped(config.consumerId(), event, e);
    }
  }

  private HandledDelivery handlerFailed(
      Connection c, Delivery d, ReceivedEvent event, int attempt, Attempts.Known known, Exception e)
      throws SQLException {
    context.listener().handlerFailed(event, e);
    Failure failure = Failure.of(e, event.event().payload());
    if (attempt >= policy.maxAttempts() || policy.isNonRetryable(e)) {
      deadLetter(c, event, attempt, known, failure);
      return HandledDelivery.failed(d, event, Outcome.DEAD, attempt, failure, e);
    }
    return HandledDelivery.failed(d, event, Outcome.RETRY, attempt, failure, e);
  }

  private void deadLetter(
      Connection c, ReceivedEvent event, int attempts, Attempts.Known known, Failure failure)
      throws SQLException {
    Instant now = context.clock().instant();
    Instant first = known == null ? now : known.firstFailedAt();
    Tracing.Span span = context.tracing().deadLetter(config.consumerId(), event.event());
    boolean written;
    try {
      written =
          deadLetters.write(c, config.consumerId(), event.event(), attempts, first, failure, now);
    } catch (SQLException | RuntimeException e) {
      span.error(e);
      throw e;
    } finally {
      span.end();
    }
    clearKnown(c, event, known);
    if (written) {
      try (LogContext mdc = LogContext.of(config.consumerId(), event.event())) {
        logDeadLetter(event, attempts, failure);
      }
    }
  }

  private void logDeadLetter(ReceivedEvent event, int attempts, Failure failure) {
    if (failure.errorClass().equals("dev.once.MalformedMessage")) {
      log.warn(
          "consumer {} dead-lettered a malformed message as {} on its first delivery: {}",
          config.consumerId(),
          event.id(),
          failure.message());
    } else {
      log.warn(
          "consumer {} dead-lettered event {} after {} attempts: {} (fingerprint {})",
          config.consumerId(),
          event.id(),
          attempts,
          failure.errorClass(),
          failure.fingerprint());
    }
  }

  private void clearKnown(Connection c, ReceivedEvent event, Attempts.Known known)
      throws SQLException {
    if (known != null) {
      attempts.clear(c, event.id().value());
    }
  }

  private void deleteMarker(Connection c, ReceivedEvent event) throws SQLException {
    context.dialect().store().deleteMarker(c, config.consumerId(), event.id().value());
  }

  /**
   * Undoes a failed handler: back to its savepoint and the marker removed, or — a batch of one,
   * without savepoints — the whole transaction, marker included.
   */
  private boolean undo(Connection c, TransactionRunner.Mark sp, ReceivedEvent event)
      throws SQLException {
    if (sp == null) {
      c.rollback();
      return true;
    }
    if (!sp.rollback()) {
      return false;
    }
    deleteMarker(c, event);
    return true;
  }
}
