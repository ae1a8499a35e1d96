package dev.once.jdbc;

import dev.once.Event;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;
import java.util.Set;

/**
 * The store part of a dialect: inbox markers, the outbox, version checks and relay batches. Every
 * Once user needs it; the locks, transaction bounds and wake-ups it builds on are the {@link
 * SqlFlavour}'s.
 */
public interface StoreDialect {

  /**
   * Inserts a marker (consumer, event) for each id, in the given order, and returns the ids this
   * statement inserted, as the first statement of a consumer's batch transaction: first bounding
   * the transaction's waits to {@code waits} where they are not {@link TransactionWaits#isNone()
   * none} (see {@link SqlFlavour#boundTransactionWaits}). A marker that exists (committed, or
   * inserted by a concurrent transaction that then commits) is skipped, never an error; any other
   * failure is thrown. The caller sorts the ids so that two transactions never wait for each other
   * in a cycle.
   */
  Set<String> insertMarkers(
      Connection c, TransactionWaits waits, String consumerId, List<String> eventIds)
      throws SQLException;

  /** Removes a marker this transaction inserted but will not act on. */
  void deleteMarker(Connection c, String consumerId, String eventId) throws SQLException;

  /**
   * Writes the event to the outbox with its key partition; false (and nothing written) if an outbox
   * row with this event id exists.
   */
  boolean insertOutbox(Connection c, Event event, int partition) throws SQLException;

  /**
   * The text of the statement {@link #insertOutbox(PreparedStatement, Event, int)} runs for {@code
   * event}, for a caller that holds it prepared across transactions (a producer on a pool); null:
   * the dialect has none, the caller runs {@link #insertOutbox(Connection, Event, int)}.
   */
  default String outboxStatement(Event event) {
    return null;
  }

  /**
   * {@link #insertOutbox(Connection, Event, int)} by {@code ps}, prepared from {@link
   * #outboxStatement}{@code (event)} on the transaction's connection: binds every parameter.
   */
  default boolean insertOutbox(PreparedStatement ps, Event event, int partition)
      throws SQLException {
    throw new UnsupportedOperationException("no outbox statement to hold");
  }

  /**
   * Stores {@code version} of (entity, id) if it is newer than the stored one; true if it was (now
   * stored), false if it was not newer.
   */
  boolean applyIfNewer(Connection c, String entity, String id, long version) throws SQLException;

  /**
   * The distinct key partitions of the oldest {@code limit} outbox rows due at {@code now}, a row
   * of a {@code keyOrdered} destination only when no earlier unsent row of its key is not due (see
   * {@link KeyHold}).
   */
  List<Integer> pendingPartitions(Connection c, Instant now, int limit, Set<String> keyOrdered)
      throws SQLException;

  /**
   * Begins a relay batch: {@link SqlFlavour#beginEngineTransaction(Connection, TransactionWaits)},
   * then the partitions of the oldest {@code limit} rows due at {@code now} ({@link
   * #pendingPartitions}), then {@link SqlFlavour#lockPartitions} on a share of them, one in {@code
   * relays} (rounded up), so that the relays of a process publish side by side instead of taking
   * turns. The share is taken from the partitions no other transaction holds, tried in a random
   * order: a relay woken while another holds the partition of an older row still takes the newer
   * row's. The standard form runs the calls one after the other (one more {@code lockPartitions}
   * for each group of partitions found held); a database that can do them in one round trip
   * overrides it.
   *
   * @param relays how many relays share the due partitions (at least 1): those of this process when
   *     its relays are behind (the caller's last claim filled a batch), else 1, all of them
   * @param keyOrdered the destinations whose rows wait behind an earlier row of their key that is
   *     not due ({@link KeyHold}); empty: the unordered statements, unchanged
   */
  RelayPartitions beginRelayBatch(
      Connection c,
      TransactionWaits waits,
      Instant now,
      int limit,
      int relays,
      Set<String> keyOrdered)
      throws SQLException;

  /**
   * Begins a relay batch ({@link #beginRelayBatch}) and claims its rows ({@link #claimOutbox} on
   * the partitions it locked; no rows when it locked none). The rows must be read after the locks
   * are held: a read begun before them (one snapshot for both) could show rows another relay
   * published and committed in between as unsent, and publish them again. The standard form makes
   * the two calls; a database that can send them in one round trip overrides it.
   *
   * @param relays as for {@link #beginRelayBatch}
   * @param keyOrdered as for {@link #beginRelayBatch}
   */
  RelayClaim claimRelayBatch(
      Connection c,
      TransactionWaits waits,
      Instant now,
      int limit,
      int relays,
      Set<String> keyOrdered)
      throws SQLException;

  /**
   * Up to {@code limit} unsent outbox rows of {@code partitions} due at {@code now}, oldest first;
   * parked rows are never due. A row of a {@code keyOrdered} destination is due only when no
   * earlier unsent row of its key is not ({@link KeyHold}): a key's row in backoff or parked holds
   * its later rows back, and only that key's.
   */
  List<OutboxRow> claimOutbox(
      Connection c, List<Integer> partitions, Instant now, int limit, Set<String> keyOrdered)
      throws SQLException;

  /**
   * Records that {@code consumerGroup} receives {@code destination} in key order (an ordered
   * consumer was built); recording it twice changes nothing. The relay reads these marks ({@link
   * #keyOrderedDestinations}).
   */
  void markKeyOrdered(Connection c, String destination, String consumerGroup, Instant now)
      throws SQLException;

  /** The destinations some consumer group receives in key order ({@link #markKeyOrdered}). */
  Set<String> keyOrderedDestinations(Connection c) throws SQLException;

  /** Marks the rows with these ids sent at {@code sentAt}. */
  void markSent(Connection c, List<Long> ids, Instant sentAt) throws SQLException;

  /**
   * Ends a relay batch: marks the rows with these ids (possibly none) sent at {@code sentAt} and
   * commits {@code c}'s transaction. The standard store runs {@link #markSent} and then commits; a
   * store may send both in one round trip (PostgreSQL does: the commit is half of a relay batch's
   * wait on the database after the broker's confirms).
   */
  void markSentAndCommit(Connection c, List<Long> ids, Instant sentAt) throws SQLException;

  /**
   * Puts off row {@code id}, which no consumer is bound to receive yet, until {@code
   * nextAttemptAt}, with {@code error} kept and no attempt counted.
   */
  void deferPublish(Connection c, long id, String error, Instant nextAttemptAt) throws SQLException;

  /**
   * Counts a refused publish of row {@code id}: one more attempt, {@code error} kept, due again at
   * {@code nextAttemptAt}.
   */
  void markPublishFailed(Connection c, long id, String error, Instant nextAttemptAt)
      throws SQLException;

  /** Counts a last refused publish and parks row {@code id}: it stays unsent, never claimed. */
  void parkOutbox(Connection c, long id, String error) throws SQLException;
}
