package dev.once.internal;

import dev.once.spi.TransactionRunner;
import java.sql.Connection;
import javax.sql.DataSource;

/** The default {@link TransactionRunner}: a connection of the data source, committed and closed. */
public final class DataSourceTransactions implements TransactionRunner {
  private final DataSource dataSource;

  public DataSourceTransactions(DataSource dataSource) {
    this.dataSource = dataSource;
  }

  @Override
  public <T> T inTransaction(Work<T> work, Runnable afterCommit) throws Exception {
    T result;
    Connection c = null;
    try {
      c = dataSource.getConnection();
      c.setAutoCommit(false);
      result = work.run(c);
      c.commit();
    } catch (Exception | Error e) {
      Jdbc.rollbackQuietly(c);
      throw e;
    } finally {
      Jdbc.closeQuietly(c);
    }
    afterCommit.run();
    return result;
  }
}
