package dev.once.internal;

import dev.once.jdbc.Dialect;
import dev.once.jdbc.TransactionWaits;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import javax.sql.DataSource;

/**
 * Runs again a unit of the engine's own bookkeeping that a deadlock or a serialization failure
 * rolled back: such a conflict with live traffic (InnoDB's gap and duplicate-key locks, concurrent
 * upserts of one row) is no outage, and the unit gives the same result whenever it succeeds. A lost
 * connection is not retried here: it is the caller's outage.
 */
public final class Conflicts {
  /** How often a unit is tried again after a conflict. */
  static final int RETRIES = 10;

  private Conflicts() {}

  /** A unit of work on the database, run again as a whole after a conflict. */
  public interface Unit<T> {
    T run() throws SQLException;
  }

  public static <T> T retry(Dialect dialect, Unit<T> unit) throws SQLException {
    for (int attempt = 1; ; attempt++) {
      try {
        return unit.run();
      } catch (SQLException e) {
        if (attempt > RETRIES || !dialect.isTransient(e) || StoreOutage.is(e)) {
          throw e;
        }
        Pause.sleep(Duration.ofMillis(5L * attempt));
      }
    }
  }

  /** Work on one connection inside a transaction someone else begins and commits. */
  public interface Work<T> {
    T on(Connection c) throws SQLException;
  }

  /**
   * Runs {@code work}, which begins and commits a transaction of its own on a connection of {@code
   * dataSource} (given with auto-commit off, and given back as it was found: {@link
   * DatabaseWaits#onConnection}), rolled back on a failure and run again as a whole after a
   * conflict ({@link #retry}).
   */
  public static <T> T inOwnTransaction(DataSource dataSource, Dialect dialect, Work<T> work)
      throws SQLException {
    return retry(
        dialect,
        () ->
            DatabaseWaits.onConnection(
                dataSource,
                c -> {
                  c.setAutoCommit(false);
                  return work.on(c);
                }));
  }

  /**
   * Runs {@code work} in one engine transaction on a connection of {@code dataSource} (begun with
   * the flavour's engine settings and {@code waits}), committed, or rolled back and run again as a
   * whole after a conflict ({@link #retry}).
   */
  public static <T> T inEngineTransaction(
      DataSource dataSource, Dialect dialect, TransactionWaits waits, Work<T> work)
      throws SQLException {
    return inOwnTransaction(
        dataSource,
        dialect,
        c -> {
          dialect.flavour().beginEngineTransaction(c, waits);
          T result = work.on(c);
          c.commit();
          return result;
        });
  }
}
