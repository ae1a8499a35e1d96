package dev.once.internal;

import dev.once.StoreException;
import dev.once.spi.Delivery;
import dev.once.spi.Dialect;
import dev.once.spi.FailedAttempt;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;

/**
 * The durable failure count of a consumer's events ({@code once_attempt}). Failures are written in
 * a short transaction of their own, after the handler's transaction rolled back, so the count
 * outlives it. Read only for deliveries the transport says it handed out before.
 */
final class Attempts {
  /** Failures recorded for one event, and the last of them. */
  record Known(int attempts, Instant firstFailedAt, Failure last) {}

  private final DataSource dataSource;
  private final Dialect dialect;
  private final String consumerId;

  Attempts(DataSource dataSource, Dialect dialect, String consumerId) {
    this.dataSource = dataSource;
    this.dialect = dialect;
    this.consumerId = consumerId;
  }

  /** Known failures of the redelivered ones among {@code deliveries}, by event id. */
  Map<String, Known> load(List<Delivery> deliveries) {
    String[] ids =
        deliveries.stream()
            .filter(d -> d.deliveryCount() > 1 || d.redelivered())
            .map(d -> d.event().id().value())
            .toArray(String[]::new);
    Map<String, Known> known = new HashMap<>();
    if (ids.length == 0) {
      return known;
    }
    try (Connection c = dataSource.getConnection()) {
      dialect
          .admin()
          .loadAttempts(c, consumerId, List.of(ids))
          .forEach(
              (id, a) ->
                  known.put(
                      id,
                      new Known(
                          a.attempts(),
                          a.firstFailedAt(),
                          STARTED.equals(a.errorClass())
                              ? null
                              : new Failure(a.errorClass(), a.fingerprint(), a.message(), false))));
    } catch (SQLException e) {
      throw new StoreException("read attempts of consumer " + consumerId, e);
    }
    return known;
  }

  /** The error class of an attempt counted before its handler ran, with no failure before it. */
  static final String STARTED = "dev.once.AttemptStarted";

  /**
   * Counts attempt {@code attempt} of an event that runs alone, before its handler, in a committed
   * transaction of its own: if the handler kills the process the count stays. Keeps the last real
   * failure, if any. Returns what is now known.
   */
  Known start(String eventId, int attempt, Known before, Instant now) {
    Instant first = before == null ? now : before.firstFailedAt();
    Failure last = before == null ? null : before.last();
    Failure kept = last != null ? last : new Failure(STARTED, "started", null, false);
    try (Connection c = dataSource.getConnection()) {
      c.setAutoCommit(true);
      // recordAttempts sets greatest(known + 1, attempt): exactly attempt, as known = attempt - 1
      dialect
          .admin()
          .recordAttempts(c, List.of(kept.attempt(consumerId, eventId, attempt, first, now)));
    } catch (SQLException e) {
      throw new StoreException("count the attempt of consumer " + consumerId, e);
    }
    return new Known(attempt, first, last);
  }

  /**
   * Records one failed attempt per entry, in one short transaction. An attempt in {@code started}
   * was counted already (see {@link #start}): its row is replaced, keeping the count.
   */
  void record(
      Map<String, Failure> failures,
      Map<String, Integer> attemptOf,
      Map<String, Known> started,
      Instant now) {
    if (failures.isEmpty()) {
      return;
    }
    List<FailedAttempt> rows = new ArrayList<>();
    List<String> replaced = new ArrayList<>();
    for (Map.Entry<String, Failure> f : failures.entrySet()) {
      Known counted = started == null ? null : started.get(f.getKey());
      Instant first = counted == null ? now : counted.firstFailedAt();
      if (counted != null) {
        replaced.add(f.getKey());
      }
      rows.add(f.getValue().attempt(consumerId, f.getKey(), attemptOf.get(f.getKey()), first, now));
    }
    try (Connection c = dataSource.getConnection()) {
      c.setAutoCommit(false);
      try {
        for (String id : replaced) {
          clear(c, id);
        }
        dialect.admin().recordAttempts(c, rows);
        c.commit();
      } catch (SQLException | RuntimeException e) {
        Jdbc.rollbackQuietly(c);
        throw e;
      }
    } catch (SQLException e) {
      throw new StoreException("record failed attempts of consumer " + consumerId, e);
    }
  }

  /** Forgets the failures of an event that is now processed or dead-lettered, in {@code c}'s tx. */
  void clear(Connection c, String eventId) throws SQLException {
    dialect.admin().deleteAttempts(c, consumerId, eventId);
  }
}
