package dev.once.internal;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.util.Set;

/**
 * Whether a failure means the database could not be reached or refused the session — down,
 * restarting, shutting down, at its connection limit, or a pool that timed out — rather than a
 * statement it refused. Such a failure says nothing about the deliveries being handled: they are
 * tried again as they are, not handed back to the broker (which counts every return).
 */
public final class StoreOutage {
  /**
   * Besides SQLState class 08 (connection exception; HikariCP's pool timeout is 08001, MySQL's "too
   * many connections" 08004): PostgreSQL's admin_shutdown, crash_shutdown, cannot_connect_now and
   * too_many_connections.
   */
  private static final Set<String> STATES = Set.of("57P01", "57P02", "57P03", "53300");

  private StoreOutage() {}

  /**
   * The connection failure in {@code failure} if {@code c} no longer works (a handler's statement
   * failed because the database ended the session); null otherwise, e.g. when the handler's own
   * connection to some other database failed while the transaction's is fine.
   */
  public static SQLException lostConnection(Throwable failure, Connection c) {
    SQLException found = find(failure);
    if (found == null) {
      return null;
    }
    try {
      return c.isValid(2) ? null : found;
    } catch (SQLException e) {
      return found;
    }
  }

  public static boolean is(Throwable failure) {
    return find(failure) != null;
  }

  private static SQLException find(Throwable failure) {
    int depth = 0;
    for (Throwable t = failure; t != null && depth < 16; t = t.getCause(), depth++) {
      if (t instanceof SQLTransientConnectionException e) {
        return e; // a pool's timeout carries no SQLState when no connection attempt failed
      }
      if (t instanceof SQLException e) {
        String state = e.getSQLState();
        if (state != null && (state.startsWith("08") || STATES.contains(state))) {
          return e;
        }
      }
    }
    return null;
  }
}
