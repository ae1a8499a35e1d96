package dev.once.internal;

import dev.once.DeadLetter;
import dev.once.Event;
import dev.once.WorkloadStatus.Backlog;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** Reading admin rows the same way on every database. */
final class AdminRows {
  private AdminRows() {}

  /** A dead letter from the {@code once_dead_letter} columns, its event read by the dialect. */
  static DeadLetter deadLetter(ResultSet rs, Event event) throws SQLException {
    return new DeadLetter(
        rs.getLong("id"),
        rs.getString("consumer_id"),
        event,
        rs.getInt("attempts"),
        Jdbc.instant(rs, "first_failed_at"),
        Jdbc.instant(rs, "last_failed_at"),
        rs.getString("error_class"),
        rs.getString("error_fingerprint"),
        rs.getString("error_message"),
        rs.getBoolean("final_attempt_crashed"),
        rs.getString("status"),
        Jdbc.instant(rs, "dead_at"),
        Jdbc.instant(rs, "resolved_at"));
  }

  /**
   * Backlog rows from a query whose columns are (name, waiting or pending, [parked,] oldest in
   * seconds) and whose parameters are {@code params}.
   */
  static List<Backlog> backlogs(Connection c, String sql, boolean parked, Object... params)
      throws SQLException {
    List<Backlog> out = new ArrayList<>();
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      Jdbc.bind(ps, params);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          long millis = Math.max(0, Math.round(rs.getDouble("oldest") * 1000));
          out.add(
              new Backlog(
                  rs.getString(1),
                  rs.getLong(parked ? "pending" : "waiting"),
                  parked ? rs.getLong("parked") : 0,
                  Duration.ofMillis(millis)));
        }
      }
    }
    return out;
  }

  /** Open dead letters per consumer from a query (consumer_id, count). */
  static List<Backlog> deadLetterCounts(Connection c, String sql) throws SQLException {
    List<Backlog> out = new ArrayList<>();
    try (PreparedStatement ps = c.prepareStatement(sql);
        ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        out.add(new Backlog(rs.getString(1), rs.getLong(2), 0, Duration.ZERO));
      }
    }
    return out;
  }
}
