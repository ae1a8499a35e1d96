package dev.once.internal;

import dev.once.ConsumerActivity;
import dev.once.DeadLetter;
import dev.once.DeadLetterAction;
import dev.once.DeadLetterGroup;
import dev.once.Event;
import dev.once.OperationState;
import dev.once.OperationStatus.StateCount;
import dev.once.OperationStatus.Uncertain;
import dev.once.WorkloadStatus.Backlog;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Reading admin rows the same way on every database. Each database binds parameters and reads times
 * its own way ({@link Sql}); ages come from the query as seconds.
 */
final class AdminRows {
  private AdminRows() {}

  /** How a database binds parameters and reads a time column. */
  interface Sql {
    void bind(PreparedStatement ps, Object... params) throws SQLException;

    Instant instant(ResultSet rs, String column) throws SQLException;
  }

  /** PostgreSQL: timestamptz through {@link java.sql.Timestamp}. */
  static final Sql POSTGRES =
      new Sql() {
        @Override
        public void bind(PreparedStatement ps, Object... params) throws SQLException {
          Jdbc.bind(ps, params);
        }

        @Override
        public Instant instant(ResultSet rs, String column) throws SQLException {
          return Jdbc.instant(rs, column);
        }
      };

  /**
   * The columns of a dead letter but its payload and headers, which a listing does not show: a
   * payload may be a megabyte, and is private.
   */
  static final String DEAD_LETTER_SUMMARY_COLUMNS =
      """
      SELECT id, consumer_id, event_id, destination, event_key, event_type,
             attempts, first_failed_at, last_failed_at, error_class, error_fingerprint,
             error_message, final_attempt_crashed, status, dead_at, resolved_at
        FROM once_dead_letter
      """;

  /** The event of a summary row: no payload, no headers (not read). */
  static Event summaryEvent(ResultSet rs) throws SQLException {
    return new Event(
        new dev.once.EventId(rs.getString("event_id")),
        rs.getString("destination"),
        rs.getString("event_key"),
        rs.getString("event_type"),
        null,
        null);
  }

  /** A dead letter from the {@code once_dead_letter} columns, its event read by the dialect. */
  static DeadLetter deadLetter(Sql sql, ResultSet rs, Event event) throws SQLException {
    return new DeadLetter(
        rs.getLong("id"),
        rs.getString("consumer_id"),
        event,
        rs.getInt("attempts"),
        sql.instant(rs, "first_failed_at"),
        sql.instant(rs, "last_failed_at"),
        rs.getString("error_class"),
        rs.getString("error_fingerprint"),
        rs.getString("error_message"),
        rs.getBoolean("final_attempt_crashed"),
        rs.getString("status"),
        sql.instant(rs, "dead_at"),
        sql.instant(rs, "resolved_at"));
  }

  /**
   * Backlog rows from a query whose columns are (name, waiting or pending, [parked,] oldest in
   * seconds) and whose parameters are {@code params}.
   */
  static List<Backlog> backlogs(
      Sql sql, Connection c, String query, boolean parked, Object... params) throws SQLException {
    List<Backlog> out = new ArrayList<>();
    try (PreparedStatement ps = c.prepareStatement(query)) {
      sql.bind(ps, params);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          out.add(
              new Backlog(
                  rs.getString(1),
                  rs.getLong(parked ? "pending" : "waiting"),
                  parked ? rs.getLong("parked") : 0,
                  seconds(rs.getDouble("oldest"))));
        }
      }
    }
    return out;
  }

  /** Open dead letters per consumer from a query (consumer_id, count). */
  static List<Backlog> deadLetterCounts(Connection c, String query) throws SQLException {
    List<Backlog> out = new ArrayList<>();
    try (PreparedStatement ps = c.prepareStatement(query);
        ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        out.add(new Backlog(rs.getString(1), rs.getLong(2), 0, Duration.ZERO));
      }
    }
    return out;
  }

  static DeadLetterGroup group(Sql sql, ResultSet rs) throws SQLException {
    return new DeadLetterGroup(
        rs.getString("consumer_id"),
        rs.getString("event_type"),
        rs.getString("error_fingerprint"),
        rs.getString("error_class"),
        rs.getLong("count"),
        sql.instant(rs, "first_dead_at"),
        sql.instant(rs, "last_dead_at"),
        rs.getString("sample_message"));
  }

  static List<DeadLetterAction> actions(Sql sql, Connection c, String query, Object... params)
      throws SQLException {
    List<DeadLetterAction> out = new ArrayList<>();
    try (PreparedStatement ps = c.prepareStatement(query)) {
      sql.bind(ps, params);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          out.add(
              new DeadLetterAction(
                  rs.getString("action"),
                  rs.getString("actor"),
                  rs.getString("reason"),
                  sql.instant(rs, "acted_at")));
        }
      }
    }
    return out;
  }

  /** (state, count, oldest in seconds) rows. */
  static List<StateCount> stateCounts(Sql sql, Connection c, String query, Object... params)
      throws SQLException {
    List<StateCount> out = new ArrayList<>();
    try (PreparedStatement ps = c.prepareStatement(query)) {
      sql.bind(ps, params);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          out.add(
              new StateCount(
                  OperationState.valueOf(rs.getString("state")),
                  rs.getLong("count"),
                  seconds(rs.getDouble("oldest"))));
        }
      }
    }
    return out;
  }

  /** Uncertain operations, their age in seconds. */
  static List<Uncertain> uncertain(Sql sql, Connection c, String query, Object... params)
      throws SQLException {
    List<Uncertain> out = new ArrayList<>();
    try (PreparedStatement ps = c.prepareStatement(query)) {
      sql.bind(ps, params);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          out.add(
              new Uncertain(
                  rs.getString("operation_id"),
                  rs.getString("provider"),
                  rs.getString("idempotency_key"),
                  OperationState.valueOf(rs.getString("state")),
                  rs.getInt("attempts"),
                  seconds(rs.getDouble("age")),
                  sql.instant(rs, "next_attempt_at"),
                  rs.getString("resolution"),
                  rs.getString("last_error")));
        }
      }
    }
    return out;
  }

  /** (consumer_id, what, count) rows of a query with (from, to) three times. */
  static ConsumerActivity activity(Sql sql, Connection c, String query, Instant from, Instant to)
      throws SQLException {
    Map<String, ConsumerActivity.Counts> counts = new TreeMap<>();
    try (PreparedStatement ps = c.prepareStatement(query)) {
      sql.bind(ps, from, to, from, to, from, to);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          long n = rs.getLong(3);
          ConsumerActivity.Counts add =
              switch (rs.getString(2)) {
                case "completed" -> new ConsumerActivity.Counts(n, 0, 0);
                case "dead" -> new ConsumerActivity.Counts(0, n, 0);
                default -> new ConsumerActivity.Counts(0, 0, n);
              };
          counts.merge(
              rs.getString(1),
              add,
              (a, b) ->
                  new ConsumerActivity.Counts(
                      a.completed() + b.completed(),
                      a.dead() + b.dead(),
                      a.retried() + b.retried()));
        }
      }
    }
    return new ConsumerActivity(from, to, counts);
  }

  static Duration seconds(double s) {
    return Duration.ofMillis(Math.max(0, Math.round(s * 1000)));
  }
}
