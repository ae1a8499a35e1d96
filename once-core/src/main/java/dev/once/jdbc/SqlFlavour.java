package dev.once.jdbc;

import dev.once.ConfigurationException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;
import javax.sql.DataSource;

/**
 * How one database differs from standard SQL: the handful of primitives the shared JDBC store
 * ({@code dev.once.jdbc}) and {@link Sql} need to run the same statements on it. A new database
 * implements {@link #name()}, {@link #schemaResources()} and the session lock ({@link #tryLock},
 * {@link #unlock}); every other method has the standard form as its default and is overridden where
 * the database has a better one or no standard one.
 *
 * <p>Another module adds its own statements on every database through {@link Sql} over the flavour
 * of {@code Dialects.forDataSource(ds).flavour()}; see docs/MARIADB.md, "Writing a dialect".
 */
public interface SqlFlavour {

  // ---- identity and schema

  /** Name used in messages and in the schema resource path, e.g. {@code postgresql}. */
  String name();

  /** Migration resources under {@code dev/once/schema/<name>/}, in the order they apply. */
  List<String> schemaResources();

  // ---- binding and reading values

  /** Binds an instant (never null) to parameter {@code index}; standard: a UTC timestamp. */
  default void bindInstant(PreparedStatement ps, int index, Instant instant) throws SQLException {
    ps.setTimestamp(index, Timestamp.from(instant));
  }

  /** The instant in {@code column}, or null. */
  default Instant readInstant(ResultSet rs, String column) throws SQLException {
    Timestamp t = rs.getTimestamp(column);
    return t == null ? null : t.toInstant();
  }

  /**
   * A condition that {@code column} equals one of the list's values, with the parameters {@link
   * #bindList} binds; standard: {@code column IN (?, ?, …)}, false for an empty list.
   */
  default String in(String column, SqlList list) {
    return list.values().isEmpty()
        ? "1 = 0"
        : column
            + " IN ("
            + String.join(", ", java.util.Collections.nCopies(list.size(), "?"))
            + ")";
  }

  /** Binds the list of {@link #in} from parameter {@code index} on; returns the next index. */
  default int bindList(PreparedStatement ps, int index, SqlList list) throws SQLException {
    for (Object value : list.values()) {
      ps.setObject(index++, value);
    }
    return index;
  }

  /**
   * The headers as the value bound to a {@code headers} column; standard: URL-encoded text, {@code
   * name=value&name=value}, in order.
   */
  default Object encodeHeaders(Connection c, Map<String, String> headers) throws SQLException {
    return HeaderText.encode(headers);
  }

  /**
   * The columns a message's headers are stored in, as an INSERT, SELECT or RETURNING lists them, in
   * the order {@link #bindHeaders} binds them; standard: {@code headers}. Every statement that
   * writes or reads a message's headers names these columns and binds an {@link SqlHeaders}.
   */
  default String headerColumns() {
    return "headers";
  }

  /**
   * {@link #headerColumns} as a relay's claim selects them for {@link #readHeaders}, each under its
   * own name; standard: {@link #headerColumns}.
   */
  default String headerColumnsRead() {
    return headerColumns();
  }

  /** The parameters of {@link #headerColumns} in a VALUES or SELECT list; standard: {@code ?}. */
  default String headerParameters() {
    return "?";
  }

  /**
   * Binds the headers to the parameters of {@link #headerParameters} from {@code index} on; returns
   * the next index. Standard: {@link #encodeHeaders} into one parameter.
   */
  default int bindHeaders(PreparedStatement ps, int index, Map<String, String> headers)
      throws SQLException {
    ps.setObject(index, encodeHeaders(ps.getConnection(), headers));
    return index + 1;
  }

  /**
   * Each header of {@code column} (and of the other {@link #headerColumns}) in order, a repeated
   * name as often as it occurs (a repeated Once header makes a message malformed, so it must not be
   * merged here). Lenient: what Once did not write is passed on as it is, a name without a value
   * with a null value; never throws on content.
   */
  default void readHeaders(ResultSet rs, String column, BiConsumer<String, Object> each)
      throws SQLException {
    HeaderText.decode(rs.getString(column), each);
  }

  // ---- clauses

  /**
   * What follows an {@code INSERT … VALUES (…)} so that a row whose {@code conflictColumns} (comma
   * separated) exist is skipped instead of failing, e.g. {@code ON CONFLICT (…) DO NOTHING}.
   * Standard: nothing, and the duplicate key error ({@link #isDuplicateKey}) rolls back the
   * statement only, as on MariaDB and MySQL; never {@code INSERT IGNORE}, which also turns
   * truncation into a warning.
   */
  default String ignoreDuplicates(String conflictColumns) {
    return "";
  }

  /**
   * What follows an {@code INSERT … VALUES (…)[, (…)]} so that a row whose {@code conflictColumns}
   * exist is updated with {@code assignments} instead ({@code col = expr, …}), in which {@link
   * #inserted} names the value the INSERT carried and {@code table.col} the stored one. Default:
   * {@code ON CONFLICT (…) DO UPDATE SET …} (PostgreSQL, SQLite, CockroachDB).
   */
  default String onConflictUpdate(String conflictColumns, String assignments) {
    return "ON CONFLICT (" + conflictColumns + ") DO UPDATE SET " + assignments;
  }

  /**
   * In {@link #onConflictUpdate}'s assignments: the value the INSERT carried for {@code column}.
   */
  default String inserted(String column) {
    return "EXCLUDED." + column;
  }

  /**
   * {@code insert}, an INSERT of one row, as a statement that gives up at once instead of waiting
   * when another open transaction holds a row with the same key: it then fails with an error {@link
   * #isLockNotAvailable} recognises (a stored key fails as a duplicate, {@link #isDuplicateKey},
   * and must roll back the statement only). Request keys claim a key with it, on {@code c}.
   * Standard SQL has no such statement: the default refuses the database.
   *
   * @throws ConfigurationException naming the database if it has no such statement
   */
  default String insertWithoutWaiting(Connection c, String insert) throws SQLException {
    throw new ConfigurationException(
        "dialect",
        "is '"
            + name()
            + "', which has no INSERT that gives up at once on a key another transaction holds:"
            + " request keys (HTTP Idempotency-Key) cannot run on it");
  }

  /**
   * What follows {@code FROM once_queue} in a claim's locking read, to read the group's unparked
   * rows from the ready index ({@code once_queue_ready}) in id order. Standard: nothing, the
   * planner finds it.
   */
  default String readyIndex() {
    return "";
  }

  /** What follows a {@code SELECT} that takes the rows it reads, skipping rows others hold. */
  default String skipLocked() {
    return "FOR UPDATE SKIP LOCKED";
  }

  /**
   * A DELETE of at most {@code ?} rows (its last parameter) of {@code table} that meet {@code
   * condition}, first by {@code orderBy} (null: any), skipping rows other transactions hold; {@code
   * key} names the columns that identify a row. Standard: {@code DELETE … WHERE (key) IN (SELECT
   * key … LIMIT ? FOR UPDATE SKIP LOCKED)}.
   */
  default String deleteOldest(String table, String key, String condition, String orderBy) {
    return "DELETE FROM %s WHERE (%s) IN (SELECT %s FROM %s WHERE %s%s LIMIT ? %s)"
        .formatted(
            table,
            key,
            key,
            table,
            condition,
            orderBy == null ? "" : " ORDER BY " + orderBy,
            skipLocked());
  }

  /**
   * An SQL literal of a time after every real one: the next attempt of a parked outbox row.
   * Standard: the last day of year 9999.
   */
  default String never() {
    return "TIMESTAMP '9999-12-31 00:00:00'";
  }

  // ---- classifying errors (by SQLState or vendor code, never by message text)

  /** Whether a unique or primary key already held the value. Standard: SQLState 23505. */
  default boolean isDuplicateKey(SQLException e) {
    return "23505".equals(e.getSQLState());
  }

  /**
   * Whether the failed statement may succeed if the transaction is simply tried again. Standard:
   * serialization failures (40001) and connection exceptions (08xxx).
   */
  default boolean isTransient(SQLException e) {
    String state = e.getSQLState();
    return state != null && (state.equals("40001") || state.startsWith("08"));
  }

  /**
   * Whether the statement gave up on a row another transaction holds ({@link
   * #insertWithoutWaiting}), the statement alone rolled back. Standard: SQLState 55P03.
   */
  default boolean isLockNotAvailable(SQLException e) {
    return "55P03".equals(e.getSQLState());
  }

  /** Whether the failure means a table of the schema is missing. Standard: SQLState 42S02. */
  default boolean isMissingTable(SQLException e) {
    return "42S02".equals(e.getSQLState());
  }

  // ---- locks

  /**
   * Takes those of the relay's key {@code partitions} no other transaction holds, without waiting,
   * and returns them; held until this transaction ends, lost with its connection. Standard: the
   * rows of {@code once_relay_partition}, locked with {@link #skipLocked()}.
   */
  default List<Integer> lockPartitions(Connection c, List<Integer> partitions) throws SQLException {
    if (partitions.isEmpty()) {
      return List.of();
    }
    SqlList list = SqlList.of("integer", partitions);
    return new Sql(this)
        .ints(
            c,
            "SELECT partition_no FROM once_relay_partition WHERE "
                + in("partition_no", list)
                + " "
                + skipLocked(),
            list);
  }

  /**
   * Takes the named lock on this (auto-commit) session without waiting; true if taken. It is held
   * until {@link #unlock} or until the session ends, and is distinct per schema (or database).
   */
  boolean tryLock(Connection c, String name) throws SQLException;

  /** Releases a lock taken by {@link #tryLock}. */
  void unlock(Connection c, String name) throws SQLException;

  // ---- transactions and wake-ups

  /**
   * Runs first in a transaction of the engine's queue work, whose loss in a database crash only
   * means a republish or a redelivery: e.g. an asynchronous commit, or a weaker isolation. Does
   * nothing where nothing helps.
   */
  default void beginEngineTransaction(Connection c) throws SQLException {}

  /**
   * {@link #beginEngineTransaction(Connection)}, first bounding the transaction's waits to {@code
   * waits} unless they are none (see {@link #boundTransactionWaits}). The default runs the two one
   * after the other; a database that can do both in one statement overrides it.
   */
  default void beginEngineTransaction(Connection c, TransactionWaits waits) throws SQLException {
    if (!waits.isNone() && boundsTransactionWaits()) {
      boundTransactionWaits(c, waits);
    }
    beginEngineTransaction(c);
  }

  // ---- bounds on waits (see dev.once.DatabaseTimeouts)

  /**
   * The lock-wait and idle-in-transaction bounds this connection's session has now (set by the
   * pool's URL, the role, the database or the server); standard: {@link TransactionWaits#NONE},
   * unknown.
   */
  default TransactionWaits sessionWaits(Connection c) throws SQLException {
    return TransactionWaits.NONE;
  }

  /**
   * Whether {@link #boundTransactionWaits} bounds a transaction's waits without changing the
   * session's for whoever uses the connection next. Standard: false.
   */
  default boolean boundsTransactionWaits() {
    return false;
  }

  /**
   * Bounds the waits of the transaction running on {@code c}, in one statement scoped to the
   * transaction; a zero bound is left as the session has it. Only called if {@link
   * #boundsTransactionWaits()}.
   */
  default void boundTransactionWaits(Connection c, TransactionWaits waits) throws SQLException {}

  /**
   * Whether this database can wake waiters in other processes ({@link #notify}, {@link #listen}).
   * If not, they find new rows when they poll; waiters in the same process are woken either way.
   */
  default boolean notifies() {
    return false;
  }

  /**
   * Wakes the listeners of {@code channel} in other processes, naming the sending engine's token so
   * that its own listener ignores it. Runs on an auto-commit connection of its own, after the
   * commit of the rows it announces. Only called if {@link #notifies()}.
   */
  default void notify(Connection c, Channel channel, String sender) throws SQLException {}

  /**
   * Starts calling {@code onNotify} on a thread of its own, with a connection of its own from
   * {@code dataSource}, whenever another sender than {@code ownSender} (null: every sender)
   * notifies {@code channel}; closing the result stops it. Only called if {@link #notifies()}.
   */
  default AutoCloseable listen(
      DataSource dataSource, Channel channel, String ownSender, Runnable onNotify) {
    return () -> {};
  }
}
