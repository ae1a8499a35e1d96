package dev.once.tablequeue;

import dev.once.Event;
import dev.once.StoreException;
import dev.once.internal.Conflicts;
import dev.once.internal.DatabaseWaits;
import dev.once.jdbc.Dialect;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;
import javax.sql.DataSource;

/** The table queue's own connections: a statement in auto-commit, or a transaction of its own. */
final class QueueConnections {
  /** What the queue does on one of its connections. */
  interface Work<T> {
    T run(Connection c) throws SQLException;
  }

  private final DataSource dataSource;

  QueueConnections(DataSource dataSource) {
    this.dataSource = dataSource;
  }

  /** {@code work} in auto-commit; a failure is a {@link StoreException} saying {@code what}. */
  <T> T autoCommit(String what, Work<T> work) {
    try {
      return DatabaseWaits.onConnection(dataSource, work::run);
    } catch (SQLException e) {
      throw new StoreException(what, e);
    }
  }

  /**
   * Enqueues {@code batch} in a transaction of its own. A deadlock with a consumer's ack that parks
   * a key (InnoDB's gap locks on the key's rows) is no outage: the batch's copies are written again
   * as a whole.
   */
  int[] enqueue(Dialect dialect, List<Event> batch, Instant now) throws SQLException {
    return Conflicts.retry(
        dialect, () -> inTransaction(c -> dialect.queue().enqueue(c, batch, now)));
  }

  /**
   * {@code work} in a transaction of its own: committed, or rolled back and thrown; the connection
   * given back as it was found ({@link DatabaseWaits#onConnection}).
   */
  <T> T inTransaction(Work<T> work) throws SQLException {
    return DatabaseWaits.onConnection(
        dataSource,
        c -> {
          c.setAutoCommit(false);
          T result = work.run(c);
          c.commit();
          return result;
        });
  }
}
