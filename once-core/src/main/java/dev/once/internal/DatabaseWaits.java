package dev.once.internal;

import dev.once.DatabaseTimeouts;
import dev.once.internal.postgres.WrappedPool;
import dev.once.jdbc.Dialect;
import dev.once.jdbc.TransactionWaits;
import dev.once.spi.ForwardingDataSource;
import dev.once.spi.TransactionRunner;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.time.Duration;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Applies {@link DatabaseTimeouts} to one data source: the network timeout on every connection Once
 * borrows from it, and the server's bounds on Once's transactions where its sessions lack them.
 */
public final class DatabaseWaits {
  private static final Logger log = LoggerFactory.getLogger(DatabaseWaits.class);

  /** Drivers that abort a connection on the executor run it here; pgjdbc ignores it. */
  private static final Executor DIRECT = Runnable::run;

  private final DatabaseTimeouts timeouts;
  private final TransactionWaits perTransaction;

  /** The sessions' own bounds; null where Once adds none to its transactions. */
  private final TransactionWaits session;

  private final AtomicBoolean unsupportedSaid = new AtomicBoolean();

  private DatabaseWaits(
      DatabaseTimeouts timeouts, TransactionWaits perTransaction, TransactionWaits session) {
    this.timeouts = timeouts;
    this.perTransaction = perTransaction;
    this.session = session;
  }

  /**
   * Reads the bounds the sessions of {@code dataSource} have (one connection) and decides what Once
   * adds to each of its transactions; warns, naming {@code who}, where the database cannot scope
   * the missing ones to a transaction.
   */
  public static DatabaseWaits check(
      DataSource dataSource, Dialect dialect, DatabaseTimeouts timeouts, String who) {
    TransactionWaits wanted =
        new TransactionWaits(timeouts.lockWait(), timeouts.idleInTransaction());
    if (wanted.isNone()) {
      return new DatabaseWaits(timeouts, TransactionWaits.NONE, null);
    }
    TransactionWaits session;
    try (Connection c = dataSource.getConnection()) {
      session = dialect.flavour().sessionWaits(c);
    } catch (SQLException e) {
      log.debug("{}: could not read the session's lock and idle timeouts", who, e);
      session = TransactionWaits.NONE;
    }
    boolean scopes = dialect.flavour().boundsTransactionWaits();
    TransactionWaits missing = session.missingFrom(wanted);
    if (missing.isNone() || scopes) {
      return new DatabaseWaits(timeouts, missing, scopes ? session : null);
    }
    log.warn(
        "{}: the {} sessions of this data source wait for a lock up to {} and keep an idle"
            + " transaction open {}; a worker whose connection goes half-open in the middle of a"
            + " transaction then holds its locks that long. Once does not change a session's"
            + " variables on a pool it was given: bound them on the pool's connections (the idle"
            + " bound longer than the relay's confirm timeout, which a relay waits for in its"
            + " transaction), e.g."
            + " jdbc:mariadb://…?sessionVariables=innodb_lock_wait_timeout={},idle_transaction_timeout={}"
            + " (see docs/OPERATING.md, \"Half-open connections\")",
        who,
        dialect.name(),
        session.lockWait().isZero() ? "for ever" : session.lockWait(),
        session.idleInTransaction().isZero() ? "for ever" : "up to " + session.idleInTransaction(),
        seconds(timeouts.lockWait()),
        Math.max(seconds(timeouts.idleInTransaction()), 60));
    return new DatabaseWaits(timeouts, TransactionWaits.NONE, null);
  }

  private static long seconds(Duration d) {
    return Math.max(1, (d.toMillis() + 999) / 1000);
  }

  /** The bounds Once adds to each of its transactions on this data source (none if not needed). */
  public TransactionWaits perTransaction() {
    return perTransaction;
  }

  /**
   * {@link #perTransaction()} for a transaction that may wait for something else up to {@code
   * longestIdle} while it is open (a relay waiting for the broker's confirms): its idle bound is
   * raised to that plus 10 s where the session's or Once's would end it sooner. Where Once cannot
   * scope bounds to a transaction, none (the session's bound must be long enough; see the warning
   * of {@link #check}).
   */
  public TransactionWaits perTransactionIdleUpTo(Duration longestIdle) {
    if (session == null) {
      return perTransaction;
    }
    Duration idle = perTransaction.idleInTransaction();
    Duration have = idle.isZero() ? session.idleInTransaction() : idle;
    Duration least = longestIdle.plusSeconds(10);
    if (have.isZero() || have.compareTo(least) >= 0) {
      return perTransaction;
    }
    return new TransactionWaits(perTransaction.lockWait(), least);
  }

  /**
   * {@code dataSource} whose connections wait at most the network timeout for the database, put
   * back as they were before they are returned; {@code dataSource} itself with no network timeout.
   */
  public DataSource bound(DataSource dataSource) {
    return timeouts.network().isZero() ? dataSource : new Bounded(dataSource);
  }

  /**
   * {@code runner} whose transactions run with the network timeout (a framework's connection keeps
   * it until its pool resets it: HikariCP does on return). Once's own runner does not need this: a
   * {@link DataSourceTransactions} given these waits sets the timeout and puts it back. The bounds
   * of {@link #perTransaction()} are the transaction's to set, with its first statement (a consumer
   * batch sets them with its markers: {@code StoreDialect#insertMarkers(Connection,
   * TransactionWaits, String, List)}).
   */
  public TransactionRunner bound(TransactionRunner runner) {
    if (timeouts.network().isZero()) {
      return runner;
    }
    return new TransactionRunner() {
      @Override
      public <T> T inTransaction(Work<T> work, Runnable afterCommit) throws Exception {
        return runner.inTransaction(
            c -> {
              limit(c);
              return work.run(c);
            },
            afterCommit);
      }

      @Override
      public boolean undoesOnConnection() {
        return runner.undoesOnConnection();
      }

      @Override
      public boolean undoesToMark() {
        return runner.undoesToMark();
      }

      @Override
      public Mark mark(Connection c) throws SQLException {
        return runner.mark(c);
      }
    };
  }

  /**
   * Sets the network timeout on {@code c} unless it has one as short; returns the one it had, or -1
   * if it was left as it was (then {@link #restore} is not needed).
   */
  int limit(Connection c) throws SQLException {
    if (timeouts.network().isZero()) {
      return -1;
    }
    int want = (int) timeouts.network().toMillis();
    try {
      int before = c.getNetworkTimeout();
      if (before > 0 && before <= want) {
        return -1;
      }
      c.setNetworkTimeout(DIRECT, want);
      return before;
    } catch (SQLFeatureNotSupportedException | AbstractMethodError e) {
      if (unsupportedSaid.compareAndSet(false, true)) {
        log.warn(
            "the JDBC driver cannot bound how long a connection waits for the database"
                + " (Connection.setNetworkTimeout: {}): set a socket timeout in its URL",
            e.toString());
      }
      return -1;
    }
  }

  /** Puts back the network timeout {@code c} had before {@link #limit} returned {@code before}. */
  static void restore(Connection c, int before) throws SQLException {
    c.setNetworkTimeout(DIRECT, before);
  }

  private Connection borrow(Connection c) throws SQLException {
    int before;
    try {
      before = limit(c);
    } catch (SQLException | RuntimeException e) {
      Jdbc.closeQuietly(c);
      throw e;
    }
    if (before < 0 || resetsNetworkTimeout(c)) {
      return c;
    }
    ClassLoader loader = c.getClass().getClassLoader();
    return (Connection)
        Proxy.newProxyInstance(
            loader != null ? loader : Connection.class.getClassLoader(),
            new Class<?>[] {Connection.class},
            new Restoring(c, before));
  }

  /**
   * Whether {@code c}'s pool puts its network timeout back when it is returned: HikariCP does (its
   * connection marks the change and resets it on close), so Once need not wrap the connection to do
   * it again. The wrapper cost a reflective call on every use of the connection and a third {@code
   * setNetworkTimeout} per transaction ({@code docs/PERFORMANCE.md}, round 11).
   */
  static boolean resetsNetworkTimeout(Connection c) {
    return c.getClass().getName().startsWith(HIKARI_CONNECTION);
  }

  /** The package of HikariCP's connections (its {@code HikariProxyConnection}). */
  private static final String HIKARI_CONNECTION = "com.zaxxer.hikari.pool.";

  /** A borrowed connection whose network timeout is put back as it was when it is closed. */
  private static final class Restoring implements InvocationHandler {
    private final Connection c;
    private final int before;

    Restoring(Connection c, int before) {
      this.c = c;
      this.before = before;
    }

    @Override
    public Object invoke(Object proxy, Method method, Object[] args) throws Throwable {
      if (method.getName().equals("close") && method.getParameterCount() == 0) {
        try {
          if (!c.isClosed()) {
            restore(c, before);
          }
        } catch (SQLException e) {
          // broken: the pool discards it
        }
      }
      try {
        return method.invoke(c, args);
      } catch (InvocationTargetException e) {
        throw e.getCause();
      }
    }
  }

  /**
   * The data source that {@code dataSource} bounds if it is one of {@link #bound(DataSource)}'s,
   * else {@code dataSource}: what two engines given the same pool compare.
   */
  public static DataSource given(DataSource dataSource) {
    return WrappedPool.of(dataSource);
  }

  /**
   * Runs {@code work} on a connection of {@code dataSource} and gives the connection back as it was
   * found: auto-commit on again if the work turned it off, and, where {@code dataSource} is one of
   * {@link #bound(DataSource)}'s, the network timeout put back, as {@link DataSourceTransactions}
   * gives back a producer's. A pool then has nothing to reset: HikariCP otherwise resets both at
   * every return and logs each reset at DEBUG, a line per relay batch and per table-queue claim
   * where logging is left at its default ({@code docs/PERFORMANCE.md}, "The engine's own
   * transactions give their connections back as they found them"). A work that turns auto-commit
   * off ends its transaction before it returns (turning auto-commit on again would commit what it
   * left open); a failure rolls back and leaves the connection's state to the pool.
   */
  public static <T> T onConnection(DataSource dataSource, Conflicts.Work<T> work)
      throws SQLException {
    DatabaseWaits waits = dataSource instanceof Bounded b ? b.waits() : null;
    Connection c = (waits == null ? dataSource : ((Bounded) dataSource).pool()).getConnection();
    int timeout = -1;
    try {
      timeout = waits == null ? -1 : waits.limit(c);
      boolean autoCommit = c.getAutoCommit();
      T result = work.on(c);
      if (autoCommit && !c.getAutoCommit()) {
        c.setAutoCommit(true); // its transaction ended: no round trip on PostgreSQL
      }
      return result;
    } catch (SQLException | RuntimeException | Error e) {
      Jdbc.rollbackQuietly(c);
      throw e;
    } finally {
      if (timeout >= 0) {
        try {
          restore(c, timeout);
        } catch (SQLException e) {
          // broken: the pool discards it
        }
      }
      Jdbc.closeQuietly(c);
    }
  }

  /** The data source whose connections {@link #borrow} bounds. */
  private final class Bounded extends ForwardingDataSource implements WrappedPool {
    Bounded(DataSource delegate) {
      super(delegate);
    }

    DatabaseWaits waits() {
      return DatabaseWaits.this;
    }

    @Override
    public DataSource pool() {
      return delegate();
    }

    @Override
    public Connection getConnection() throws SQLException {
      return borrow(super.getConnection());
    }

    @Override
    public Connection getConnection(String user, String password) throws SQLException {
      return borrow(super.getConnection(user, password));
    }
  }
}
