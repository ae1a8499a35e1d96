package dev.once;

import java.sql.SQLException;
import java.time.Duration;
import java.util.List;

/**
 * Hears every step of the pipeline. Every method defaults to a no-op; metrics, logging and the
 * testkit's crash injection plug in here. Methods are called on the worker's own thread, inside the
 * step they describe, so keep them fast.
 *
 * <p>A {@link RuntimeException} thrown by a listener is logged and otherwise ignored: a broken
 * metrics listener must not stop processing. An {@link Error} is not caught: it is treated as the
 * crash of the worker at that point (the transaction is abandoned, nothing is acknowledged), which
 * is how the testkit stops a worker at a named crash window.
 */
public interface OnceListener {

  OnceListener NOOP = new OnceListener() {};

  /** Producer: the events are in the outbox rows of a transaction that is about to commit. */
  default void beforeProducerCommit(List<Event> events) {}

  /** Producer: the transaction with these outbox rows committed. */
  default void producerCommitted(List<Event> events) {}

  /** Consumer: a batch of deliveries arrived; no transaction work was done for it yet. */
  default void received(List<ReceivedEvent> batch) {}

  /**
   * Consumer: this transaction inserted the marker; the handler has not run yet. A batch in which a
   * handler fails is rolled back and run again with a savepoint per delivery, so this and {@link
   * #handled} may be heard twice for one delivery; {@link #outcome} is heard once.
   */
  default void markerInserted(ReceivedEvent event) {}

  /** Consumer: the handler made its changes; the transaction has not committed yet. */
  default void handled(ReceivedEvent event) {}

  /** Consumer: the handler threw; its changes and the marker are rolled back. */
  default void handlerFailed(ReceivedEvent event, Throwable error) {}

  /**
   * Consumer: the batch transaction was rolled back by a transient conflict of the database — a
   * deadlock, a lock wait timeout, a lost connection ({@link dev.once.jdbc.Dialect#isTransient}).
   * Nothing of it committed; every delivery of the batch runs again, without an attempt charged:
   * returned to the transport after the retry policy's initial backoff (a conflict), or kept by the
   * worker and run again after its pause (a lost or refused connection, which a broker would
   * otherwise count against its delivery limit). On MariaDB/MySQL, InnoDB's locks on concurrent
   * inserts of the same marker make this happen now and then (see docs/MARIADB.md); count it to see
   * how often.
   */
  default void transientRollback(List<ReceivedEvent> batch, SQLException cause) {}

  /** Consumer: the batch transaction committed; nothing is acknowledged yet. */
  default void committed(List<ReceivedEvent> events) {}

  /** Consumer: the delivery was acknowledged (or negatively acknowledged, for RETRY). */
  default void outcome(ReceivedEvent event, Outcome outcome, Duration sinceReceived) {}

  /**
   * Relay: the broker confirmed these events; they are not marked sent yet. With a transport that
   * publishes in the relay's own transaction (the table queue on Once's data source) they are
   * written in that transaction, which has not committed yet.
   */
  default void published(List<Event> events) {}

  /** Relay: these events are marked sent. {@code oldestAge} is the age of the oldest of them. */
  default void markedSent(List<Event> events, Duration oldestAge) {}

  /** Relay: the broker did not take this event; the row stays pending. */
  default void publishFailed(Event event, String reason) {}

  /**
   * Operation: this caller holds the operation and its idempotency key is committed; the provider
   * is about to be called (for the first time, or again with the same key).
   */
  default void operationKeyStored(OperationResult operation) {}

  /** Operation: the provider answered ({@code answer} is SUCCEEDED or FAILED); not stored yet. */
  default void operationAnswered(OperationResult operation, OperationState answer) {}

  /** Operation: an attempt's outcome is stored (SUCCEEDED, FAILED, UNKNOWN, PENDING, ABANDONED). */
  default void operationStored(OperationResult operation) {}

  /**
   * Operation: an uncertain operation was reconciled. {@code answer} is the provider's, or null
   * when it was not asked; {@code resolution} says what was decided, as recorded on the operation.
   */
  default void operationReconciled(
      OperationResult operation, LookupAnswer answer, String resolution) {}

  /**
   * Request key: the key is claimed, the work ran and its response is stored; the transaction is
   * about to commit (a crash here leaves nothing: the client's retry runs).
   */
  default void beforeRequestCommit(RequestKey key) {}

  /**
   * Request key: the key, its response and the work's changes committed; the response is not
   * written to the client yet (a crash here: the client's retry gets the stored response).
   */
  default void requestCommitted(RequestKey key) {}
}
