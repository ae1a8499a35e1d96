package dev.once.internal.consumer;

import dev.once.StoreException;
import dev.once.internal.Failure;
import dev.once.internal.Jdbc;
import dev.once.jdbc.Dialect;
import dev.once.jdbc.FailedAttempt;
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
 * outlives it. Read only for deliveries the transport says it handed out before. A crash counts as
 * an attempt only when the event ran alone (see {@link Isolation}).
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

  /** Known failures of these events, by event id, read on {@code c}. */
  Map<String, Known> load(Connection c, List<String> ids) throws SQLException {
    Map<String, Known> known = new HashMap<>();
    if (ids.isEmpty()) {
      return known;
    }
    dialect
        .attempts()
        .loadAttempts(c, consumerId, ids)
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
    return known;
  }

  /** The error class of an attempt counted before its handler ran, with no failure before it. */
  static final String STARTED = "dev.once.AttemptStarted";

  /**
   * The row that counts attempt {@code attempt} of an event that runs alone, written before its
   * handler in a committed transaction (see {@link Isolation#prepare}): if the handler kills the
   * process the count stays. It keeps the last real failure, if any.
   */
  FailedAttempt started(String eventId, int attempt, Known before, Instant now) {
    Instant first = before == null ? now : before.firstFailedAt();
    Failure last = before == null ? null : before.last();
    Failure kept = last != null ? last : new Failure(STARTED, "started", null, false);
    // recordAttempts sets greatest(known + 1, attempt): exactly attempt, as known = attempt - 1
    return kept.attempt(consumerId, eventId, attempt, first, now);
  }

  /** What is known once {@link #started} is written. */
  static Known afterStart(int attempt, Known before, Instant now) {
    return new Known(
        attempt,
        before == null ? now : before.firstFailedAt(),
        before == null ? null : before.last());
  }

  /**
   * Counts attempt {@code attempt} of an event whose run threw an {@link Error} (its worker crashed
   * in this process, so it is known to be the one), in a short transaction: as {@link #started}
   * does, keeping the last real failure; {@code error} only when there is none. If {@code counted},
   * the attempt was counted before its run (it ran alone) and only a missing failure is filled in.
   */
  void crashed(
      String eventId, int attempt, Known before, boolean counted, Failure error, Instant now) {
    if (before != null && before.last() != null) {
      if (!counted) {
        write(List.of(), List.of(started(eventId, attempt, before, now)));
      }
      return;
    }
    Instant first = before == null ? now : before.firstFailedAt();
    write(
        counted ? List.of(eventId) : List.of(),
        List.of(error.attempt(consumerId, eventId, attempt, first, now)));
  }

  /**
   * Records one failed attempt per entry, in one short transaction. An attempt in {@code started}
   * was counted already (see {@link #started}): its row is replaced, keeping the count.
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
    write(replaced, rows);
  }

  /** In one transaction: deletes the rows of {@code replaced}, then upserts {@code rows}. */
  private void write(List<String> replaced, List<FailedAttempt> rows) {
    try (Connection c = dataSource.getConnection()) {
      c.setAutoCommit(false);
      try {
        for (String id : replaced) {
          clear(c, id);
        }
        dialect.attempts().recordAttempts(c, rows);
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
    dialect.attempts().deleteAttempts(c, consumerId, eventId);
  }
}
