package dev.once;

import dev.once.jdbc.Dialect;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
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
      return dialect.status().operationStatus(c, now, limit);
    } catch (SQLException e) {
      throw new StoreException("read the operation status", e);
    }
  }
}
