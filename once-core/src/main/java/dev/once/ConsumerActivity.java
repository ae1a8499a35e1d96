package dev.once;

import dev.once.jdbc.Dialect;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;
import java.util.Map;
import javax.sql.DataSource;

/**
 * What each consumer finished in a time window, read from the rows it leaves behind: inbox markers
 * written (completed), dead letters made (dead), attempt rows whose last failure fell in the window
 * (retried). Duplicates leave no row and are not counted here (the dashboard's listener counts them
 * in-process). A marker's time is its transaction's start, so read a window that ended a moment
 * ago.
 *
 * @param counts consumer id → counts in {@code [from, to)}
 */
public record ConsumerActivity(Instant from, Instant to, Map<String, Counts> counts) {

  public record Counts(long completed, long dead, long retried) {
    Counts plus(String what, long n) {
      return switch (what) {
        case "completed" -> new Counts(completed + n, dead, retried);
        case "dead" -> new Counts(completed, dead + n, retried);
        default -> new Counts(completed, dead, retried + n);
      };
    }
  }

  /** Reads the window {@code [from, to)}. */
  public static ConsumerActivity read(
      DataSource dataSource, Dialect dialect, Instant from, Instant to) {
    try (Connection c = dataSource.getConnection()) {
      return dialect.status().consumerActivity(c, from, to);
    } catch (SQLException e) {
      throw new StoreException("read consumer activity", e);
    }
  }
}
