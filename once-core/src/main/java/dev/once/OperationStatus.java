package dev.once;

import dev.once.spi.Dialect;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;

/**
 * Operations by state, and the uncertain ones ({@code UNKNOWN}, {@code ABANDONED}) in detail: the
 * ones an operator may have to look at.
 *
 * @param at when it was read
 */
public record OperationStatus(Instant at, List<StateCount> states, List<Uncertain> uncertain) {

  /** How many operations are in {@code state}, and the age of the oldest of them. */
  public record StateCount(OperationState state, long count, Duration oldestAge) {}

  /**
   * An operation whose outcome at the provider is not known, or no longer pursued.
   *
   * @param nextAttemptAt when the reconciler looks again (null for ABANDONED)
   * @param resolution what reconciliation decided, as recorded (null before any)
   * @param lastError the last attempt's error text
   */
  public record Uncertain(
      String operationId,
      String provider,
      String idempotencyKey,
      OperationState state,
      int attempts,
      Duration age,
      Instant nextAttemptAt,
      String resolution,
      String lastError) {}

  /** Reads the states and at most {@code limit} uncertain operations, oldest first. */
  public static OperationStatus read(
      DataSource dataSource, Dialect dialect, Instant now, int limit) {
    try (Connection c = dataSource.getConnection()) {
      return new OperationStatus(now, states(c, dialect, now), uncertain(c, dialect, now, limit));
    } catch (SQLException e) {
      throw new StoreException("read the operation status", e);
    }
  }

  private static List<StateCount> states(Connection c, Dialect dialect, Instant now)
      throws SQLException {
    List<StateCount> out = new ArrayList<>();
    try (PreparedStatement ps = c.prepareStatement(dialect.operationStates())) {
      ps.setTimestamp(1, Timestamp.from(now));
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

  private static List<Uncertain> uncertain(Connection c, Dialect dialect, Instant now, int limit)
      throws SQLException {
    List<Uncertain> out = new ArrayList<>();
    try (PreparedStatement ps = c.prepareStatement(dialect.uncertainOperations())) {
      ps.setTimestamp(1, Timestamp.from(now));
      ps.setInt(2, limit);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          Timestamp next = rs.getTimestamp("next_attempt_at");
          out.add(
              new Uncertain(
                  rs.getString("operation_id"),
                  rs.getString("provider"),
                  rs.getString("idempotency_key"),
                  OperationState.valueOf(rs.getString("state")),
                  rs.getInt("attempts"),
                  seconds(rs.getDouble("age")),
                  next == null ? null : next.toInstant(),
                  rs.getString("resolution"),
                  rs.getString("last_error")));
        }
      }
    }
    return out;
  }

  private static Duration seconds(double s) {
    return Duration.ofMillis(Math.max(0, Math.round(s * 1000)));
  }
}
