package dev.once;

import dev.once.jdbc.Dialect;
import dev.once.jdbc.Dialects;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import javax.sql.DataSource;

/**
 * What is waiting, read from the database in one go: the outbox per destination, the table queue
 * per consumer group, the retry backlog and open dead letters per consumer, and the keys ordered
 * consumers parked. Ages are those of the oldest waiting row: one slow old message and many fresh
 * ones are different incidents.
 *
 * @param at when it was read
 * @param parkedKeys per ordered consumer group, the keys it parked behind a dead letter: {@code
 *     parked} keys, {@code waiting} queue rows held behind them, {@code oldestAge} the time since
 *     the oldest was parked
 */
public record WorkloadStatus(
    Instant at,
    List<Backlog> outbox,
    List<Backlog> queue,
    List<Backlog> retries,
    List<Backlog> deadLetters,
    List<Backlog> parkedKeys) {

  /**
   * One row of the status.
   *
   * @param name a destination, consumer group or consumer id
   * @param waiting rows waiting
   * @param parked outbox rows the relay gave up on (dead letters of {@code (relay)}); keys parked
   *     in {@link #parkedKeys}; 0 elsewhere
   * @param oldestAge age of the oldest waiting row (zero when none); of an open dead letter, the
   *     time since it was dead-lettered
   */
  public record Backlog(String name, long waiting, long parked, Duration oldestAge) {}

  /**
   * Reads the status of the data source's current schema now, its dialect chosen from the data
   * source. With a {@link Once} at hand, {@link Once#status()} does the same.
   */
  public static WorkloadStatus read(DataSource dataSource) {
    return read(dataSource, Dialects.forDataSource(dataSource), Instant.now());
  }

  /** Reads the status of the data source's current schema, as of {@code now}. */
  public static WorkloadStatus read(DataSource dataSource, Dialect dialect, Instant now) {
    try (Connection c = dataSource.getConnection()) {
      return dialect.status().status(c, now);
    } catch (SQLException e) {
      throw new StoreException("read the workload status", e);
    }
  }
}
