package dev.once.internal;

import dev.once.jdbc.Dialect;
import java.sql.SQLException;
import java.time.Duration;

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
}
