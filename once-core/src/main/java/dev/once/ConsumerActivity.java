package dev.once;

import dev.once.spi.Dialect;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.Map;
import java.util.TreeMap;
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

  public static ConsumerActivity read(
      DataSource dataSource, Dialect dialect, Instant from, Instant to) {
    Map<String, Counts> counts = new TreeMap<>();
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps = c.prepareStatement(dialect.consumerActivity())) {
      for (int i = 0; i < 3; i++) {
        ps.setTimestamp(2 * i + 1, Timestamp.from(from));
        ps.setTimestamp(2 * i + 2, Timestamp.from(to));
      }
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          counts.merge(
              rs.getString(1),
              new Counts(0, 0, 0).plus(rs.getString(2), rs.getLong(3)),
              (a, b) -> a.plus("completed", b.completed).plus("dead", b.dead).plus("r", b.retried));
        }
      }
    } catch (SQLException e) {
      throw new StoreException("read consumer activity", e);
    }
    return new ConsumerActivity(from, to, counts);
  }
}
