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
                          new Failure(a.errorClass(), a.fingerprint(), a.message(), false))));
    } catch (SQLException e) {
      throw new StoreException("read attempts of consumer " + consumerId, e);
    }
    return known;
  }

  /** Records one failed attempt per entry, in one short transaction. */
  void record(Map<String, Failure> failures, Map<String, Integer> attemptOf, Instant now) {
    if (failures.isEmpty()) {
      return;
    }
    List<FailedAttempt> rows = new ArrayList<>();
    for (Map.Entry<String, Failure> f : failures.entrySet()) {
      rows.add(f.getValue().attempt(consumerId, f.getKey(), attemptOf.get(f.getKey()), now, now));
    }
    try (Connection c = dataSource.getConnection()) {
      c.setAutoCommit(false);
      try {
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
