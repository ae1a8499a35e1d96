package dev.once.internal.mariadb;

import dev.once.ConfigurationException;
import dev.once.jdbc.SqlFlavour;
import dev.once.jdbc.TransactionWaits;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Locale;

/**
 * MariaDB 10.6+ and MySQL 8.0+ (InnoDB): instants as UTC {@code DATETIME(6)} values (whatever the
 * JVM's or the server's time zone), duplicate keys detected by error 1062 (the statement alone is
 * rolled back), relay partitions as rows of {@code once_relay_partition}, {@code GET_LOCK}, READ
 * COMMITTED engine transactions. No LISTEN/NOTIFY: relays and table-queue receivers of other
 * processes find new rows when they poll ({@code OnceBuilder.relayIdleWait}, {@code
 * TableQueueTransport.Builder.idleWait}). Lists, headers and clauses are the standard ones.
 */
public class MariaDbFlavour implements SqlFlavour {

  /** ER_DUP_ENTRY: a unique or primary key already holds the value. */
  static final int DUPLICATE_KEY = 1062;

  @Override
  public String name() {
    return "mariadb";
  }

  @Override
  public List<String> schemaResources() {
    return List.of(
        "V1__once.sql",
        "V2__once_suspect.sql",
        "V3__once_request.sql",
        "V4__once_parked_key.sql",
        "V5__once_ordered_destination.sql",
        "V6__once_queue_parked.sql");
  }

  @Override
  public void bindInstant(PreparedStatement ps, int index, Instant instant) throws SQLException {
    ps.setObject(index, LocalDateTime.ofInstant(instant, ZoneOffset.UTC));
  }

  @Override
  public Instant readInstant(ResultSet rs, String column) throws SQLException {
    LocalDateTime t = rs.getObject(column, LocalDateTime.class);
    return t == null ? null : t.toInstant(ZoneOffset.UTC);
  }

  /**
   * Detecting a duplicate by its error is what DESIGN.md forbids in general; here it is right:
   * InnoDB rolls back the failed statement only, the transaction goes on, and {@code INSERT IGNORE}
   * or {@code ON DUPLICATE KEY UPDATE} would also hide other errors or take more locks.
   */
  @Override
  public boolean isDuplicateKey(SQLException e) {
    return e.getErrorCode() == DUPLICATE_KEY;
  }

  @Override
  public String onConflictUpdate(String conflictColumns, String assignments) {
    return "ON DUPLICATE KEY UPDATE " + assignments;
  }

  /** {@code DELETE … ORDER BY … LIMIT ?}: MariaDB has no LIMIT in an IN subquery. */
  @Override
  public String deleteOldest(String table, String key, String condition, String orderBy) {
    return "DELETE FROM %s WHERE %s%s LIMIT ?"
        .formatted(table, condition, orderBy == null ? "" : " ORDER BY " + orderBy);
  }

  /**
   * MariaDB's {@code SET STATEMENT innodb_lock_wait_timeout = 0 FOR} the insert: it fails at once
   * (1205, the statement rolled back) instead of waiting for the holder's transaction. MySQL has no
   * {@code SET STATEMENT} (and no lock wait shorter than a second): refused, named.
   */
  @Override
  public String insertWithoutWaiting(Connection c, String insert) throws SQLException {
    var meta = c.getMetaData();
    String product = meta.getDatabaseProductName();
    String server = product + " " + meta.getDatabaseProductVersion(); // MySQL's driver: "MySQL"
    if (!server.toLowerCase(Locale.ROOT).contains("mariadb")) {
      throw new ConfigurationException(
          "dataSource",
          "is a '"
              + product
              + "' database, which has no SET STATEMENT to claim a request key without waiting"
              + " for another request's transaction: request keys (HTTP Idempotency-Key) need"
              + " MariaDB or PostgreSQL");
    }
    return "SET STATEMENT innodb_lock_wait_timeout = 0 FOR " + insert;
  }

  /**
   * ER_LOCK_WAIT_TIMEOUT (1205): with {@link #insertWithoutWaiting}, another transaction holds it.
   */
  @Override
  public boolean isLockNotAvailable(SQLException e) {
    return e.getErrorCode() == 1205;
  }

  @Override
  public String inserted(String column) {
    return "VALUES(" + column + ")";
  }

  /**
   * Deadlocks (1213, SQLState 40001) and lock wait timeouts (1205) roll back; InnoDB's REPEATABLE
   * READ takes gap and duplicate-key locks that make concurrent marker inserts deadlock now and
   * then. Connection failures (08xxx) too.
   */
  @Override
  public boolean isTransient(SQLException e) {
    String state = e.getSQLState();
    int code = e.getErrorCode();
    return code == 1213 // ER_LOCK_DEADLOCK
        || code == 1205 // ER_LOCK_WAIT_TIMEOUT
        || "40001".equals(state)
        || (state != null && state.startsWith("08"));
  }

  @Override
  public boolean isMissingTable(SQLException e) {
    return e.getErrorCode() == 1146 || "42S02".equals(e.getSQLState()); // ER_NO_SUCH_TABLE
  }

  /** {@code GET_LOCK}: a named lock of the session, gone when its connection is. */
  @Override
  public boolean tryLock(Connection c, String name) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("SELECT GET_LOCK(" + lockName() + ", 0)")) {
      ps.setString(1, name);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() && rs.getInt(1) == 1;
      }
    }
  }

  @Override
  public void unlock(Connection c, String name) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("SELECT RELEASE_LOCK(" + lockName() + ")")) {
      ps.setString(1, name);
      ps.execute();
    }
  }

  /** The name, made distinct per database (lock names are server-wide, at most 64 characters). */
  private static String lockName() {
    return "concat(?, '_', md5(database()))";
  }

  /**
   * The ready index, named: its statistics do not say how few of a group's rows are unparked, and
   * with them the optimizer served a claim's {@code ORDER BY id LIMIT} from the primary key
   * instead, reading the rows behind a parked key (and every other group's) to find the first
   * unparked ones (ParkedKeyClaimTest: 1 080 index rows a claim, against 71 with the index).
   */
  @Override
  public String readyIndex() {
    return " FORCE INDEX (once_queue_ready)";
  }

  /**
   * READ COMMITTED: the relay's and the queue's reads see rows other relays and receivers committed
   * after this transaction began (a REPEATABLE READ snapshot would show rows another relay has just
   * sent as pending), and their locking reads take no gap locks that block producers' inserts.
   */
  @Override
  public void beginEngineTransaction(Connection c) throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement("SET TRANSACTION ISOLATION LEVEL READ COMMITTED")) {
      ps.execute();
    }
  }

  /**
   * {@code innodb_lock_wait_timeout} and {@code idle_transaction_timeout} of the session (MySQL,
   * which has no idle-transaction bound, reports none). Neither can be scoped to a transaction
   * here: {@link #boundsTransactionWaits()} stays false, and Once leaves the session as it is.
   */
  @Override
  public TransactionWaits sessionWaits(Connection c) throws SQLException {
    Duration lock;
    try (PreparedStatement ps = c.prepareStatement("SELECT @@session.innodb_lock_wait_timeout");
        ResultSet rs = ps.executeQuery()) {
      rs.next();
      lock = Duration.ofSeconds(rs.getLong(1));
    }
    try (PreparedStatement ps = c.prepareStatement("SELECT @@session.idle_transaction_timeout");
        ResultSet rs = ps.executeQuery()) {
      rs.next();
      return new TransactionWaits(lock, Duration.ofSeconds(rs.getLong(1)));
    } catch (SQLException e) {
      if (e.getErrorCode() == 1193) { // ER_UNKNOWN_SYSTEM_VARIABLE: MySQL
        return new TransactionWaits(lock, Duration.ZERO);
      }
      throw e;
    }
  }
}
