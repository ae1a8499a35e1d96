package dev.once.spi;

import dev.once.Event;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import javax.sql.DataSource;

/**
 * The store part of a dialect: inbox markers, the outbox, version checks, relay coordination and
 * cross-process wake-ups. Every Once user needs it.
 */
public interface StoreDialect {

  /**
   * Inserts a marker (consumer, event) for each id, in the given order, and returns the ids this
   * statement inserted. A marker that exists (committed, or inserted by a concurrent transaction
   * that then commits) is skipped, never an error; any other failure is thrown. The caller sorts
   * the ids so that two transactions never wait for each other in a cycle.
   */
  Set<String> insertMarkers(Connection c, String consumerId, List<String> eventIds)
      throws SQLException;

  /**
   * {@link #insertMarkers(Connection, String, List)} as the first statement of a consumer's batch
   * transaction, first bounding the transaction's waits to {@code waits} where they are not {@link
   * TransactionWaits#isNone() none} (see {@link #boundTransactionWaits}). The default runs the two
   * one after the other; a database that can send both in one round trip overrides it.
   */
  default Set<String> insertMarkers(
      Connection c, TransactionWaits waits, String consumerId, List<String> eventIds)
      throws SQLException {
    if (!waits.isNone() && boundsTransactionWaits()) {
      boundTransactionWaits(c, waits);
    }
    return insertMarkers(c, consumerId, eventIds);
  }

  /** Removes a marker this transaction inserted but will not act on. */
  void deleteMarker(Connection c, String consumerId, String eventId) throws SQLException;

  /**
   * Writes the event to the outbox with its key partition; false (and nothing written) if an outbox
   * row with this event id exists.
   */
  boolean insertOutbox(Connection c, Event event, int partition) throws SQLException;

  /**
   * As {@link #insertOutbox}, and in the same transaction a notification of {@code channel} from
   * {@code sender} that its commit delivers to other processes (see {@link #notify(Connection,
   * Channel, String)}): a producer's transaction carries the wake-up of other processes' relays
   * instead of a transaction of its own after it. The default runs the two statements one after the
   * other; a database whose driver sends several statements in one round trip does better. Only
   * called if {@link #notifies()}.
   */
  default boolean insertOutboxNotifying(
      Connection c, Event event, int partition, Channel channel, String sender)
      throws SQLException {
    boolean written = insertOutbox(c, event, partition);
    notify(c, channel, sender);
    return written;
  }

  /**
   * Stores {@code version} of (entity, id) if it is newer than the stored one; true if it was (now
   * stored), false if it was not newer.
   */
  boolean applyIfNewer(Connection c, String entity, String id, long version) throws SQLException;

  /**
   * Runs first in a transaction of the engine's queue work (a relay batch, a table-queue claim, ack
   * or nack), whose loss in a database crash only means a republish or a redelivery: e.g. an
   * asynchronous commit, or planner settings for tables whose statistics mislead. Scoped to the
   * transaction. Does nothing where nothing helps.
   */
  default void beginEngineTransaction(Connection c) throws SQLException {}

  /**
   * {@link #beginEngineTransaction(Connection)}, first bounding the transaction's waits to {@code
   * waits} where they are not {@link TransactionWaits#isNone() none} (see {@link
   * #boundTransactionWaits}). The default runs the two one after the other; a database that can do
   * both in one statement overrides it.
   */
  default void beginEngineTransaction(Connection c, TransactionWaits waits) throws SQLException {
    if (!waits.isNone() && boundsTransactionWaits()) {
      boundTransactionWaits(c, waits);
    }
    beginEngineTransaction(c);
  }

  /**
   * The waits this connection's session is bounded to now (set by the pool's URL, the role, the
   * database or the server's configuration); {@link TransactionWaits#NONE} where unknown.
   */
  default TransactionWaits sessionWaits(Connection c) throws SQLException {
    return TransactionWaits.NONE;
  }

  /**
   * Whether {@link #boundTransactionWaits} can bound a transaction's waits without changing the
   * session's for whoever uses the connection next. False by default.
   */
  default boolean boundsTransactionWaits() {
    return false;
  }

  /**
   * Bounds the waits of the transaction running on {@code c} (one statement, scoped to the
   * transaction; a zero bound is left as the session has it). Only called if {@link
   * #boundsTransactionWaits()}.
   */
  default void boundTransactionWaits(Connection c, TransactionWaits waits) throws SQLException {}

  /** The distinct key partitions of the oldest {@code limit} outbox rows due at {@code now}. */
  List<Integer> pendingPartitions(Connection c, Instant now, int limit) throws SQLException;

  /**
   * Takes those of {@code partitions} no other transaction holds, without waiting, and returns
   * them. This transaction holds them until it ends, and loses them if its connection dies.
   */
  List<Integer> lockPartitions(Connection c, List<Integer> partitions) throws SQLException;

  /**
   * Begins a relay batch: {@link #beginEngineTransaction(Connection, TransactionWaits)}, then the
   * partitions of the oldest {@code limit} rows due at {@code now} ({@link #pendingPartitions}),
   * then {@link #lockPartitions} on a share of them, one in {@code relays} (rounded up), so that
   * the relays of a process publish side by side instead of taking turns. The share is taken from
   * the partitions no other transaction holds, tried in a random order: a relay woken while another
   * holds the partition of an older row still takes the newer row's. The default runs the calls one
   * after the other (one more {@code lockPartitions} for each group of partitions found held); a
   * database that can do them in one round trip overrides it.
   *
   * @param relays how many relays run in this process (at least 1)
   */
  default RelayPartitions beginRelayBatch(
      Connection c, TransactionWaits waits, Instant now, int limit, int relays)
      throws SQLException {
    beginEngineTransaction(c, waits);
    List<Integer> due = new ArrayList<>(pendingPartitions(c, now, limit));
    if (due.isEmpty()) {
      return RelayPartitions.NONE;
    }
    Collections.shuffle(due);
    int share = (due.size() + relays - 1) / relays;
    List<Integer> locked = new ArrayList<>(share);
    int tried = 0;
    while (locked.size() < share && tried < due.size()) {
      int next = Math.min(due.size(), tried + share - locked.size());
      locked.addAll(lockPartitions(c, due.subList(tried, next)));
      tried = next;
    }
    return new RelayPartitions(due.size(), locked);
  }

  /**
   * Begins a relay batch ({@link #beginRelayBatch}) and claims its rows ({@link #claimOutbox} on
   * the partitions it locked; no rows when it locked none). The rows must be read after the locks
   * are held: a read begun before them (one snapshot for both) could show rows another relay
   * published and committed in between as unsent, and publish them again. The default makes the two
   * calls; a database that can send them in one round trip overrides it.
   *
   * @param relays how many relays run in this process (at least 1)
   */
  default RelayClaim claimRelayBatch(
      Connection c, TransactionWaits waits, Instant now, int limit, int relays)
      throws SQLException {
    RelayPartitions partitions = beginRelayBatch(c, waits, now, limit, relays);
    if (partitions.locked().isEmpty()) {
      return new RelayClaim(partitions, List.of());
    }
    return new RelayClaim(partitions, claimOutbox(c, partitions.locked(), now, limit));
  }

  /**
   * Up to {@code limit} unsent outbox rows of {@code partitions} due at {@code now}, oldest first;
   * parked rows are never due.
   */
  List<OutboxRow> claimOutbox(Connection c, List<Integer> partitions, Instant now, int limit)
      throws SQLException;

  /** Marks the rows with these ids sent at {@code sentAt}. */
  void markSent(Connection c, List<Long> ids, Instant sentAt) throws SQLException;

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

  /**
   * Whether this database can wake waiters in other processes ({@link #notify}, {@link #listen}).
   * If not, they find new rows when they poll; waiters in the same process are woken either way.
   */
  default boolean notifies() {
    return false;
  }

  /**
   * Wakes the listeners of {@code channel} in other processes. Runs on an auto-commit connection of
   * its own, after the commit of the rows it announces, or in their transaction ({@link
   * #insertOutboxNotifying}). Only called if {@link #notifies()}.
   */
  default void notify(Connection c, Channel channel) throws SQLException {}

  /**
   * Starts calling {@code onNotify} on a thread of its own, with a connection of its own from
   * {@code dataSource}, whenever {@code channel} is notified; closing the result stops it. Only
   * called if {@link #notifies()}.
   */
  default AutoCloseable listen(DataSource dataSource, Channel channel, Runnable onNotify) {
    return () -> {};
  }

  /**
   * As {@link #notify(Connection, Channel)}, naming the sender: a token of the engine that sends,
   * so that its own listener can tell its own notifications apart (see {@link #listen(DataSource,
   * Channel, String, Runnable)}). The default ignores the sender.
   *
   * @param c an auto-commit connection of its own
   * @param channel the channel to notify
   * @param sender the sending engine's token (letters and digits)
   * @throws SQLException if the notification cannot be sent
   */
  default void notify(Connection c, Channel channel, String sender) throws SQLException {
    notify(c, channel);
  }

  /**
   * As {@link #listen(DataSource, Channel, Runnable)}, but notifications sent with {@code
   * ownSender} do not call {@code onNotify}: the engine that sent them woke its own waiters
   * directly, and waking them again only makes each look for work a second time. The default
   * ignores {@code ownSender}.
   *
   * @param dataSource where the listening connection comes from
   * @param channel the channel to listen on
   * @param ownSender the token this process's engine sends with (see {@link #notify(Connection,
   *     Channel, String)})
   * @param onNotify called on the listener's thread for notifications of other senders
   * @return closing it stops listening
   */
  default AutoCloseable listen(
      DataSource dataSource, Channel channel, String ownSender, Runnable onNotify) {
    return listen(dataSource, channel, onNotify);
  }
}
