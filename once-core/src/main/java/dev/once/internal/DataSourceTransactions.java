package dev.once.internal;

import dev.once.spi.TransactionRunner;
import java.sql.Connection;
import java.sql.SQLException;
import javax.sql.DataSource;

/**
 * The default {@link TransactionRunner}: a connection of the data source, committed, put back as it
 * was borrowed and closed.
 *
 * <p>What a transaction changes on its connection (auto-commit off, the network timeout of {@link
 * DatabaseWaits}) it sets back itself before it returns it, as Spring's transaction manager does: a
 * pool then has nothing to reset. HikariCP otherwise resets both at every return and logs each
 * reset at DEBUG, a line per producer transaction where logging is left at its default ({@code
 * docs/PERFORMANCE.md}, "A producer transaction returns its connection as it found it").
 *
 * <p>It commits right after the work returns, with nothing in between, and pgjdbc's {@code
 * commit()} sends nothing when the server said no transaction is open: a consumer batch's last
 * statement may therefore commit the transaction itself, in its own round trip (the table queue's
 * acknowledgement, {@code InDatabaseAck#ackAndCommit}).
 */
public final class DataSourceTransactions implements TransactionRunner {
  private final DataSource dataSource;

  /** The network timeout set on each connection and put back; null: none. */
  private final DatabaseWaits waits;

  public DataSourceTransactions(DataSource dataSource) {
    this(dataSource, null);
  }

  /** Each transaction's connection bounded by the network timeout of {@code waits}. */
  public DataSourceTransactions(DataSource dataSource, DatabaseWaits waits) {
    this.dataSource = dataSource;
    this.waits = waits;
  }

  @Override
  public <T> T inTransaction(Work<T> work, Runnable afterCommit) throws Exception {
    T result;
    Connection c = null;
    int timeout = -1;
    boolean autoCommit = false;
    try {
      c = dataSource.getConnection();
      timeout = waits == null ? -1 : waits.limit(c);
      autoCommit = c.getAutoCommit();
      if (autoCommit) {
        c.setAutoCommit(false);
      }
      result = work.run(c);
      c.commit();
      if (autoCommit) {
        c.setAutoCommit(true); // after a commit: no round trip
      }
    } catch (Exception | Error e) {
      Jdbc.rollbackQuietly(c); // auto-commit is left to the pool: a failed rollback must not commit
      throw e;
    } finally {
      putBack(c, timeout);
      Jdbc.closeQuietly(c);
    }
    afterCommit.run();
    return result;
  }

  private void putBack(Connection c, int timeout) {
    if (c != null && timeout >= 0) {
      try {
        DatabaseWaits.restore(c, timeout);
      } catch (SQLException e) {
        // the connection is broken: the pool discards it
      }
    }
  }
}
