package dev.once;

import java.sql.Connection;

/**
 * The transaction a producer's or a handler's code runs in. Everything done through it — SQL on
 * {@link #connection()} and events given to {@link #publish(Event)} — commits or rolls back
 * together. Do not commit, roll back or close the connection yourself.
 */
public interface Tx {

  /** The JDBC connection of this transaction (auto-commit off). */
  Connection connection();

  /** Runs one SQL update with positional parameters and returns the row count. */
  int update(String sql, Object... params);

  /**
   * Writes the event to the outbox in this transaction. The relay publishes it after commit. An
   * event id already in the outbox is not written twice: returns {@code false} then.
   *
   * <p>On the table queue built on Once's own data source with {@code
   * enqueueInProducerTransaction(true)}, the event's queue rows (one per consumer group bound to
   * its destination) are written instead, in this transaction, and no relay is involved; an event
   * of a destination no group is bound to, or that a key-ordered consumer receives, still goes to
   * the outbox. An id already enqueued by this transaction is not enqueued twice ({@code false});
   * one enqueued by an earlier transaction is enqueued again, and its consumers find the second
   * copy a {@code DUPLICATE}.
   *
   * @throws UnknownDestinationException if the destination was not declared
   */
  boolean publish(Event event);

  /**
   * Records that this transaction applies {@code version} of an entity, if it is newer than the
   * newest version applied before, and returns whether it is. Atomic under concurrent transactions:
   * of two deliveries racing with versions 3 and 5, the one with 3 gets {@code false} whichever
   * commits first (it waits for the other's row if needed).
   *
   * <p>A handler that gets {@code false} must return without changing anything: the event is older
   * than the state already applied. If every call a handler made returned {@code false}, the
   * delivery's outcome is {@link Outcome#STALE} (its marker still commits, so a redelivery is a
   * {@code DUPLICATE}); if any returned {@code true} it is {@code PROCESSED}.
   *
   * @param entity the kind of entity, e.g. {@code order}
   * @param id the entity's id
   * @param version its version in the event; higher is newer
   */
  boolean applyIfNewer(String entity, String id, long version);
}
