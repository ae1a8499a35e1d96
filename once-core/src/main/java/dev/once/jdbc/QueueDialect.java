package dev.once.jdbc;

import dev.once.Event;
import dev.once.spi.Delivery;
import dev.once.spi.MessageDecoder;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;

/**
 * The table-queue part of a dialect: a broker built on a table. {@code TableQueueTransport} uses
 * it, and the key lanes of ordered consumers on a broker ({@link #keepsLanes}). Claims, acks and
 * nacks run in their own transaction, opened with {@link SqlFlavour#beginEngineTransaction}: losing
 * one in a database crash only shows rows again sooner or redelivers them.
 */
public interface QueueDialect {

  /** Binds {@code consumerId} to {@code destination}; binding twice changes nothing. */
  void bind(Connection c, String destination, String consumerId) throws SQLException;

  /**
   * Enqueues one copy of each event for every consumer group bound to its destination, visible at
   * {@code now}; returns per event how many copies were enqueued (0: no group is bound).
   */
  int[] enqueue(Connection c, List<Event> events, Instant now) throws SQLException;

  /**
   * Enqueues one copy of {@code event} for every consumer group bound to its destination, as {@link
   * #enqueue} does, in one statement, unless one of those groups is in key order ({@link
   * #markInKeyOrder}): then it writes nothing. Returns how many copies were enqueued (0: no group
   * is bound, or one is ordered; the producer then writes an outbox row and the relay publishes
   * it). By default 0 for every event: a dialect without it leaves every event to the relay.
   */
  default int enqueueUnordered(Connection c, Event event, Instant now) throws SQLException {
    return 0;
  }

  /**
   * Enqueues one copy of {@code event} for {@code consumerId} only, visible at {@code now} (a
   * replay of that group's dead letter); returns how many rows were written (0: the group is not
   * bound to the event's destination). When the event heads a key the group parked, the copy takes
   * the head's old queue id (so it is the key's first row again) and the key is released, in the
   * caller's transaction.
   */
  default int enqueueFor(Connection c, Event event, String consumerId, Instant now)
      throws SQLException {
    throw new UnsupportedOperationException("this dialect cannot enqueue for one consumer group");
  }

  /**
   * Claims visible rows of the group, oldest first, skipping rows other claims hold: each one's
   * delivery count goes up by one and it stays invisible until {@link QueueClaim#visibleUntil()}.
   * Each delivery's handle is the row id (a {@code Long}), its count the new delivery count; each
   * row is decoded with {@link MessageDecoder}, so that a row that does not decode is handed out as
   * malformed (and dead-lettered alone) instead of failing the claim.
   */
  List<Delivery> claim(Connection c, QueueClaim claim) throws SQLException;

  /**
   * Acknowledges the rows {@code ids} ({@link #ack}) and, unless {@code claim} is null, claims the
   * group's next rows ({@link #claim}) in the caller's open transaction on {@code c}, a consumer's
   * batch transaction: the claim's delivery counts commit with the batch, before the claimed rows'
   * handlers run. Null where it claimed nothing: no claim asked, or the dialect does not claim in a
   * consumer's transaction (the default): on MariaDB and MySQL a claim's next-key locks could
   * deadlock the batch.
   */
  default List<Delivery> ackAndClaim(Connection c, List<Long> ids, QueueClaim claim)
      throws SQLException {
    ack(c, ids);
    return null;
  }

  /**
   * {@link #ackAndClaim}, then the commit of the caller's transaction on {@code c}: for a caller
   * whose transaction has nothing left to do after the acknowledgement (a consumer's batch on
   * Once's own transaction runner, whose {@code commit()} after it then finds no transaction open).
   * The default does the two one after the other; a dialect that sends them in one round trip says
   * so in {@link #commitsWithAck}, and only then is this asked. On a failure the caller rolls back.
   */
  default List<Delivery> ackClaimAndCommit(Connection c, List<Long> ids, QueueClaim claim)
      throws SQLException {
    List<Delivery> claimed = ackAndClaim(c, ids, claim);
    c.commit();
    return claimed;
  }

  /**
   * Whether {@link #ackClaimAndCommit} sends the commit in the acknowledgement's round trip (one
   * round trip less per consumer batch); false by default.
   */
  default boolean commitsWithAck() {
    return false;
  }

  /**
   * {@link #claim}, or {@link #claimInKeyOrder} when {@code inKeyOrder}, as a transaction of its
   * own on {@code c} (auto-commit off, nothing run in it yet): begun with {@code flavour}'s engine
   * settings and {@code waits}, then committed. By default the three one after the other; a dialect
   * may send them in one round trip. On a failure the caller rolls back.
   */
  default List<Delivery> claimAndCommit(
      Connection c,
      SqlFlavour flavour,
      TransactionWaits waits,
      QueueClaim claim,
      boolean inKeyOrder)
      throws SQLException {
    flavour.beginEngineTransaction(c, waits);
    List<Delivery> claimed = inKeyOrder ? claimInKeyOrder(c, claim) : claim(c, claim);
    c.commit();
    return claimed;
  }

  /** Deletes the rows with these ids (acknowledged). */
  void ack(Connection c, List<Long> ids) throws SQLException;

  /**
   * Whether this dialect has the ordered forms of claim and ack ({@link #claimInKeyOrder}, {@link
   * #ackInKeyOrder}); false by default.
   */
  default boolean ordersByKey() {
    return false;
  }

  /**
   * Marks the group ordered: the rows enqueued for it from now on are held in key order (the mark
   * is copied from its binding onto each row: only those rows are in the index an ordered claim
   * probes). A mark is never taken back by a declare (a process that only publishes, or an older
   * one, cannot unorder a group); an operator clears it on {@code once_queue_binding}.
   */
  void markInKeyOrder(Connection c, String destination, String consumerId) throws SQLException;

  /**
   * A {@link #claim} of an ordered group: a row with a key is claimed only when no earlier row of
   * its (group, destination, key) is in the queue, in flight or not, and its key is not parked in
   * {@code once_parked_key}; so at most one row of a key is claimed at a time, and a nacked row
   * stays its key's first. Rows without a key are claimed as by {@link #claim}.
   */
  default List<Delivery> claimInKeyOrder(Connection c, QueueClaim claim) throws SQLException {
    throw new UnsupportedOperationException("this dialect has no ordered table-queue claim");
  }

  /**
   * An {@link #ack} of an ordered group: deletes the rows and, in the same statement, parks the key
   * of each one whose event the group holds an open dead letter of (its head id and event id in
   * {@code once_parked_key}, parked at {@code now}): the key's later rows then wait for a replay or
   * a discard.
   */
  default void ackInKeyOrder(Connection c, List<Long> ids, Instant now) throws SQLException {
    throw new UnsupportedOperationException("this dialect has no ordered table-queue ack");
  }

  /**
   * Whether an ordered group of a broker that orders by key (Kafka) can keep its key lane here
   * (docs/ORDERING.md, "Ordered on a broker"): a parked head's place reserved from the queue's id
   * sequence ({@link #parkBrokerHead}) and {@link #laneKeys}. False by default; the standard queue
   * ({@code JdbcQueue}: PostgreSQL, MariaDB, MySQL) has them. A group of a broker that orders by
   * queue (RabbitMQ) needs only {@link #ordersByKey} and {@link #enqueueInLane}: its lane holds
   * every message, so a parked head is a lane row.
   */
  default boolean keepsLanes() {
    return false;
  }

  /**
   * Whether the group has a key lane here: bound to this queue in key order ({@link
   * #markInKeyOrder}). A group of a broker that was ordered once keeps it, and its rows and parked
   * keys must still be drained after it is made unordered.
   */
  default boolean hasLane(Connection c, String destination, String consumerId) throws SQLException {
    return false;
  }

  /**
   * Of {@code keys}, those the group must not run straight from its broker, in one statement (one
   * snapshot): a parked key, mapped to its head's event id, or a key with rows of the group's lane
   * in this queue, mapped to "".
   */
  default Map<String, String> laneKeys(
      Connection c, String destination, String consumerId, Collection<String> keys)
      throws SQLException {
    throw new UnsupportedOperationException("this dialect keeps no key lanes");
  }

  /**
   * Parks the key of {@code e}, which an ordered group of a broker dead-lettered in the caller's
   * transaction, unless it is parked: its head id a fresh value of the queue's id sequence, so that
   * a replay puts it before every record of its key diverted after it.
   */
  default void parkBrokerHead(Connection c, String consumerId, Event e, Instant now)
      throws SQLException {
    throw new UnsupportedOperationException("this dialect keeps no key lanes");
  }

  /**
   * Puts {@code events} at the end of the group's lane, in list order (ids ascending): one row each
   * for {@code consumerId} in key order (its binding must be marked so), in one round trip where
   * the driver can; returns the rows written per event (0: not bound). A dialect that {@link
   * #ordersByKey} has it.
   */
  default int[] enqueueInLane(Connection c, List<Event> events, String consumerId, Instant now)
      throws SQLException {
    throw new UnsupportedOperationException("this dialect keeps no key lanes");
  }

  /** Makes the rows with these ids visible again at {@code visibleAt}. */
  void nack(Connection c, List<Long> ids, Instant visibleAt) throws SQLException;

  /**
   * Hands the rows with these ids back unrun, visible at {@code visibleAt}: their claim is undone,
   * delivery count included, so that the next claim does not flag them redelivered (a worker that
   * stopped, or a batch another delivery crashed, returns them this way).
   */
  void release(Connection c, List<Long> ids, Instant visibleAt) throws SQLException;

  /** The number of rows waiting for the group, in flight or not. */
  long depth(Connection c, String consumerId) throws SQLException;

  /** Deletes every row of the group; returns how many. */
  int purge(Connection c, String consumerId) throws SQLException;
}
