package dev.once.internal;

import static dev.once.internal.MariaDbJdbc.in;
import static dev.once.internal.MariaDbJdbc.params;

import dev.once.ConsumerActivity;
import dev.once.DeadLetter;
import dev.once.DeadLetterAction;
import dev.once.DeadLetterFilter;
import dev.once.DeadLetterGroup;
import dev.once.Event;
import dev.once.OperationStatus;
import dev.once.WorkloadStatus;
import dev.once.WorkloadStatus.Backlog;
import dev.once.spi.AdminDialect;
import dev.once.spi.AttemptCount;
import dev.once.spi.FailedAttempt;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** Attempts, dead letters, retention, status and the schema check on MariaDB/MySQL. */
public class MariaDbAdmin implements AdminDialect {

  /** A named lock per database; MD5 keeps the name within MySQL's 64 characters. */
  private static final String RETENTION_LOCK = "concat('once_retention_', md5(database()))";

  @Override
  public Map<String, AttemptCount> loadAttempts(
      Connection c, String consumerId, List<String> eventIds) throws SQLException {
    Map<String, AttemptCount> known = new HashMap<>();
    try (PreparedStatement ps =
        c.prepareStatement(
            """
            SELECT event_id, attempts, first_failed_at, error_class, error_fingerprint,
                   error_message
              FROM once_attempt
             WHERE consumer_id = ? AND event_id IN (%s)
            """
                .formatted(in(eventIds.size())))) {
      MariaDbJdbc.bind(ps, params(List.of(consumerId), eventIds));
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          known.put(
              rs.getString("event_id"),
              new AttemptCount(
                  rs.getInt("attempts"),
                  MariaDbJdbc.instant(rs, "first_failed_at"),
                  rs.getString("error_class"),
                  rs.getString("error_fingerprint"),
                  rs.getString("error_message")));
        }
      }
    }
    return known;
  }

  @Override
  public void recordAttempts(Connection c, List<FailedAttempt> attempts) throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement(
            """
            INSERT INTO once_attempt
                   (consumer_id, event_id, attempts, first_failed_at, last_failed_at,
                    error_class, error_fingerprint, error_message)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            ON DUPLICATE KEY UPDATE
                   attempts = greatest(attempts + 1, VALUES(attempts)),
                   last_failed_at = VALUES(last_failed_at),
                   error_class = VALUES(error_class),
                   error_fingerprint = VALUES(error_fingerprint),
                   error_message = VALUES(error_message)
            """)) {
      for (FailedAttempt a : attempts) {
        MariaDbJdbc.bind(
            ps,
            a.consumerId(),
            a.eventId(),
            a.attempts(),
            a.firstFailedAt(),
            a.lastFailedAt(),
            a.errorClass(),
            a.fingerprint(),
            a.message());
        ps.addBatch();
      }
      ps.executeBatch();
    }
  }

  @Override
  public void deleteAttempts(Connection c, String consumerId, String eventId) throws SQLException {
    MariaDbJdbc.update(
        c, "DELETE FROM once_attempt WHERE consumer_id = ? AND event_id = ?", consumerId, eventId);
  }

  @Override
  public Map<String, Integer> loadSuspects(Connection c, String consumerId, List<String> eventIds)
      throws SQLException {
    Map<String, Integer> levels = new HashMap<>();
    try (PreparedStatement ps =
        c.prepareStatement(
            "SELECT event_id, level FROM once_suspect WHERE consumer_id = ? AND event_id IN (%s)"
                .formatted(in(eventIds.size())))) {
      MariaDbJdbc.bind(ps, params(List.of(consumerId), eventIds));
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          levels.put(rs.getString("event_id"), rs.getInt("level"));
        }
      }
    }
    return levels;
  }

  @Override
  public void raiseSuspects(
      Connection c, String consumerId, Map<String, Integer> levels, Instant raisedAt)
      throws SQLException {
    List<String> ids = levels.keySet().stream().sorted().toList(); // one lock order for all
    List<Object> values = new ArrayList<>(ids.size() * 4);
    for (String id : ids) {
      values.addAll(List.of(consumerId, id, levels.get(id), raisedAt));
    }
    MariaDbJdbc.update(
        c,
        """
        INSERT INTO once_suspect (consumer_id, event_id, level, raised_at)
        VALUES %s
        ON DUPLICATE KEY UPDATE
               level = greatest(level, VALUES(level)), raised_at = VALUES(raised_at)
        """
            .formatted(String.join(", ", Collections.nCopies(ids.size(), "(?, ?, ?, ?)"))),
        values.toArray());
  }

  @Override
  public void clearSuspects(Connection c, String consumerId, List<String> eventIds)
      throws SQLException {
    MariaDbJdbc.update(
        c,
        "DELETE FROM once_suspect WHERE consumer_id = ? AND event_id IN (%s)"
            .formatted(in(eventIds.size())),
        params(List.of(consumerId), eventIds));
  }

  /**
   * Reopens a resolved one with an UPDATE; else an INSERT; if that hits a row inserted meanwhile,
   * the UPDATE once more (an open one stays as it is).
   */
  @Override
  public boolean insertDeadLetter(Connection c, Event event, FailedAttempt f, Instant deadAt)
      throws SQLException {
    Object[] reopen = {
      event.payload(),
      MariaDbJdbc.headers(event.headers()),
      f.attempts(),
      f.firstFailedAt(),
      f.lastFailedAt(),
      f.errorClass(),
      f.fingerprint(),
      f.message(),
      f.finalAttemptCrashed(),
      deadAt,
      f.consumerId(),
      event.id().value()
    };
    String reopenSql =
        """
        UPDATE once_dead_letter
           SET status = 'dead', resolved_at = NULL, payload = ?, headers = ?, attempts = ?,
               first_failed_at = ?, last_failed_at = ?, error_class = ?, error_fingerprint = ?,
               error_message = ?, final_attempt_crashed = ?, dead_at = ?
         WHERE consumer_id = ? AND event_id = ? AND status <> 'dead'
        """;
    if (MariaDbJdbc.update(c, reopenSql, reopen) == 1) {
      return true;
    }
    boolean inserted =
        MariaDbJdbc.insertUnlessDuplicate(
            c,
            """
            INSERT INTO once_dead_letter
                   (consumer_id, event_id, destination, event_key, event_type, payload, headers,
                    attempts, first_failed_at, last_failed_at, error_class, error_fingerprint,
                    error_message, final_attempt_crashed, dead_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """,
            f.consumerId(),
            event.id().value(),
            event.destination(),
            event.key(),
            event.type(),
            event.payload(),
            MariaDbJdbc.headers(event.headers()),
            f.attempts(),
            f.firstFailedAt(),
            f.lastFailedAt(),
            f.errorClass(),
            f.fingerprint(),
            f.message(),
            f.finalAttemptCrashed(),
            deadAt);
    return inserted || MariaDbJdbc.update(c, reopenSql, reopen) == 1;
  }

  /** How MariaDB binds parameters and reads times, for {@link AdminRows}. */
  static final AdminRows.Sql SQL =
      new AdminRows.Sql() {
        @Override
        public void bind(PreparedStatement ps, Object... params) throws SQLException {
          MariaDbJdbc.bind(ps, params);
        }

        @Override
        public Instant instant(ResultSet rs, String column) throws SQLException {
          return MariaDbJdbc.instant(rs, column);
        }
      };

  private static final String DEAD_LETTER_COLUMNS =
      """
      SELECT id, consumer_id, event_id, destination, event_key, event_type, payload, headers,
             attempts, first_failed_at, last_failed_at, error_class, error_fingerprint,
             error_message, final_attempt_crashed, status, dead_at, resolved_at
        FROM once_dead_letter
      """;

  @Override
  public List<DeadLetter> selectDeadLetters(Connection c, DeadLetterFilter f) throws SQLException {
    return deadLetters(
        c, DEAD_LETTER_COLUMNS + where(f) + " ORDER BY id LIMIT ?", filterParams(f, f.limit()));
  }

  @Override
  public List<DeadLetter> pageDeadLetters(Connection c, DeadLetterFilter f, long beforeId)
      throws SQLException {
    return deadLetters(
        c,
        DEAD_LETTER_COLUMNS + where(f) + " AND id < ? ORDER BY id DESC LIMIT ?",
        filterParams(f, beforeId, f.limit()));
  }

  @Override
  public List<DeadLetter> selectDeadLetterSummaries(Connection c, DeadLetterFilter f, long afterId)
      throws SQLException {
    List<DeadLetter> out = new ArrayList<>();
    try (PreparedStatement ps =
        c.prepareStatement(
            AdminRows.DEAD_LETTER_SUMMARY_COLUMNS + where(f) + " AND id > ? ORDER BY id LIMIT ?")) {
      MariaDbJdbc.bind(ps, filterParams(f, afterId, f.limit()));
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          out.add(AdminRows.deadLetter(SQL, rs, AdminRows.summaryEvent(rs)));
        }
      }
    }
    return out;
  }

  @Override
  public long countDeadLetters(Connection c, DeadLetterFilter f) throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement("SELECT count(*) FROM once_dead_letter" + where(f))) {
      MariaDbJdbc.bind(ps, filterParams(f));
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? rs.getLong(1) : 0;
      }
    }
  }

  /** A {@link DeadLetterFilter}: each condition holds when its parameter is null. */
  private static String where(DeadLetterFilter f) {
    String ids =
        f.ids() == null
            ? ""
            : f.ids().isEmpty() ? " AND FALSE" : " AND id IN (" + in(f.ids().size()) + ")";
    return """
         WHERE (? IS NULL OR consumer_id = ?)
           AND (? IS NULL OR event_type = ?)
           AND (? IS NULL OR error_fingerprint = ?)
           AND (? IS NULL OR dead_at >= ?)
           AND (? IS NULL OR dead_at < ?)
           AND (? IS NULL OR status = ?)
           AND (? IS NULL OR event_id = ?)
        """
        + ids;
  }

  /** The parameters of {@link #where}, then {@code more}. */
  private static Object[] filterParams(DeadLetterFilter f, Object... more) {
    List<Object> head =
        java.util.Arrays.asList(
            f.consumerId(),
            f.consumerId(),
            f.type(),
            f.type(),
            f.fingerprint(),
            f.fingerprint(),
            f.from(),
            f.from(),
            f.to(),
            f.to(),
            f.status(),
            f.status(),
            f.eventId(),
            f.eventId());
    return MariaDbJdbc.params(head, f.ids() == null ? List.of() : List.copyOf(f.ids()), more);
  }

  private static List<DeadLetter> deadLetters(Connection c, String sql, Object[] params)
      throws SQLException {
    List<DeadLetter> out = new ArrayList<>();
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      MariaDbJdbc.bind(ps, params);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          out.add(AdminRows.deadLetter(SQL, rs, MariaDbJdbc.event(rs)));
        }
      }
    }
    return out;
  }

  @Override
  public List<DeadLetterGroup> deadLetterGroups(Connection c, String status, int limit)
      throws SQLException {
    List<DeadLetterGroup> out = new ArrayList<>();
    try (PreparedStatement ps =
        c.prepareStatement(
            """
            SELECT consumer_id, event_type, error_fingerprint, min(error_class) AS error_class,
                   count(*) AS count, min(dead_at) AS first_dead_at, max(dead_at) AS last_dead_at,
                   max(error_message) AS sample_message
              FROM once_dead_letter
             WHERE (? IS NULL OR status = ?)
             GROUP BY consumer_id, event_type, error_fingerprint
             ORDER BY count(*) DESC, consumer_id, event_type, error_fingerprint
             LIMIT ?
            """)) {
      MariaDbJdbc.bind(ps, status, status, limit);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          out.add(AdminRows.group(SQL, rs));
        }
      }
    }
    return out;
  }

  @Override
  public List<DeadLetterAction> deadLetterActions(Connection c, String consumerId, String eventId)
      throws SQLException {
    return AdminRows.actions(
        SQL,
        c,
        """
        SELECT action, actor, reason, acted_at FROM once_dead_letter_action
         WHERE consumer_id = ? AND event_id = ?
         ORDER BY id
        """,
        consumerId,
        eventId);
  }

  @Override
  public boolean resolveDeadLetter(Connection c, long id, String status, Instant at)
      throws SQLException {
    return MariaDbJdbc.update(
            c,
            "UPDATE once_dead_letter SET status = ?, resolved_at = ? WHERE id = ? AND status = 'dead'",
            status,
            at,
            id)
        == 1;
  }

  @Override
  public void insertDeadLetterAction(
      Connection c, String consumerId, String eventId, DeadLetterAction a) throws SQLException {
    MariaDbJdbc.update(
        c,
        """
        INSERT INTO once_dead_letter_action (consumer_id, event_id, action, actor, reason, acted_at)
        VALUES (?, ?, ?, ?, ?, ?)
        """,
        consumerId,
        eventId,
        a.action(),
        a.actor(),
        a.reason(),
        a.actedAt());
  }

  @Override
  public void unparkOutbox(Connection c, String eventId) throws SQLException {
    MariaDbJdbc.update(
        c,
        """
        UPDATE once_outbox SET attempts = 0, next_attempt_at = NULL, last_error = NULL
         WHERE event_id = ? AND sent_at IS NULL
        """,
        eventId);
  }

  @Override
  public void deleteParkedOutbox(Connection c, String eventId) throws SQLException {
    MariaDbJdbc.update(
        c,
        "DELETE FROM once_outbox WHERE event_id = ? AND sent_at IS NULL AND next_attempt_at = ?",
        eventId,
        MariaDbJdbc.NEVER);
  }

  /** {@code GET_LOCK}: a named lock of the session, gone when its connection is. */
  @Override
  public boolean tryRetentionLock(Connection c) throws SQLException {
    try (PreparedStatement ps =
            c.prepareStatement("SELECT GET_LOCK(%s, 0)".formatted(RETENTION_LOCK));
        ResultSet rs = ps.executeQuery()) {
      return rs.next() && rs.getInt(1) == 1;
    }
  }

  @Override
  public void retentionUnlock(Connection c) throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement("SELECT RELEASE_LOCK(%s)".formatted(RETENTION_LOCK))) {
      ps.execute();
    }
  }

  @Override
  public int deleteOldMarkers(Connection c, Instant before, int limit) throws SQLException {
    return MariaDbJdbc.update(
        c, "DELETE FROM once_inbox WHERE processed_at < ? LIMIT ?", before, limit);
  }

  @Override
  public int deleteSentOutbox(Connection c, Instant before, int limit) throws SQLException {
    return MariaDbJdbc.update(
        c,
        "DELETE FROM once_outbox WHERE sent_at IS NOT NULL AND sent_at < ? ORDER BY sent_at LIMIT ?",
        before,
        limit);
  }

  @Override
  public int deleteResolvedDeadLetters(Connection c, Instant before, int limit)
      throws SQLException {
    return MariaDbJdbc.update(
        c,
        "DELETE FROM once_dead_letter WHERE status <> 'dead' AND resolved_at < ? LIMIT ?",
        before,
        limit);
  }

  @Override
  public int deleteOldSuspects(Connection c, Instant before, int limit) throws SQLException {
    return MariaDbJdbc.update(
        c, "DELETE FROM once_suspect WHERE raised_at < ? LIMIT ?", before, limit);
  }

  @Override
  public int deleteOldAttempts(Connection c, Instant before, int limit) throws SQLException {
    return MariaDbJdbc.update(
        c, "DELETE FROM once_attempt WHERE last_failed_at < ? LIMIT ?", before, limit);
  }

  /** Ages are computed here from the oldest time each query returns. */
  @Override
  public WorkloadStatus status(Connection c, Instant now) throws SQLException {
    return new WorkloadStatus(
        now,
        backlogs(
            c,
            now,
            """
            SELECT destination,
                   sum(next_attempt_at IS NULL OR next_attempt_at < ?) AS waiting,
                   sum(next_attempt_at = ?) AS parked,
                   min(CASE WHEN next_attempt_at IS NULL OR next_attempt_at < ?
                            THEN created_at END) AS oldest
              FROM once_outbox
             WHERE sent_at IS NULL
             GROUP BY destination
             ORDER BY destination
            """,
            MariaDbJdbc.NEVER,
            MariaDbJdbc.NEVER,
            MariaDbJdbc.NEVER),
        backlogs(
            c,
            now,
            """
            SELECT consumer_group, count(*) AS waiting, 0 AS parked, min(enqueued_at) AS oldest
              FROM once_queue
             GROUP BY consumer_group
             ORDER BY consumer_group
            """),
        backlogs(
            c,
            now,
            """
            SELECT consumer_id, count(*) AS waiting, 0 AS parked, min(first_failed_at) AS oldest
              FROM once_attempt
             GROUP BY consumer_id
             ORDER BY consumer_id
            """),
        backlogs(
            c,
            null,
            """
            SELECT consumer_id, count(*) AS waiting, 0 AS parked, NULL AS oldest
              FROM once_dead_letter
             WHERE status = 'dead'
             GROUP BY consumer_id
             ORDER BY consumer_id
            """));
  }

  private static List<Backlog> backlogs(Connection c, Instant now, String sql, Object... params)
      throws SQLException {
    List<Backlog> out = new ArrayList<>();
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      MariaDbJdbc.bind(ps, params);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          Instant oldest = MariaDbJdbc.instant(rs, "oldest");
          Duration age =
              oldest == null || now == null || oldest.isAfter(now)
                  ? Duration.ZERO
                  : Duration.between(oldest, now);
          out.add(new Backlog(rs.getString(1), rs.getLong("waiting"), rs.getLong("parked"), age));
        }
      }
    }
    return out;
  }

  @Override
  public OperationStatus operationStatus(Connection c, Instant now, int limit) throws SQLException {
    return new OperationStatus(
        now,
        AdminRows.stateCounts(
            SQL,
            c,
            """
            SELECT state, count(*) AS count,
                   greatest(TIMESTAMPDIFF(MICROSECOND, min(created_at), ?), 0) / 1e6 AS oldest
              FROM once_operation
             GROUP BY state
             ORDER BY state
            """,
            now),
        AdminRows.uncertain(
            SQL,
            c,
            """
            SELECT operation_id, provider, idempotency_key, state, attempts,
                   TIMESTAMPDIFF(MICROSECOND, created_at, ?) / 1e6 AS age, next_attempt_at,
                   resolution, last_error
              FROM once_operation
             WHERE state IN ('UNKNOWN', 'ABANDONED')
             ORDER BY created_at
             LIMIT ?
            """,
            now,
            limit));
  }

  @Override
  public ConsumerActivity consumerActivity(Connection c, Instant from, Instant to)
      throws SQLException {
    return AdminRows.activity(
        SQL,
        c,
        """
        SELECT consumer_id, 'completed' AS what, count(*) FROM once_inbox
         WHERE processed_at >= ? AND processed_at < ? GROUP BY consumer_id
        UNION ALL
        SELECT consumer_id, 'dead', count(*) FROM once_dead_letter
         WHERE dead_at >= ? AND dead_at < ? GROUP BY consumer_id
        UNION ALL
        SELECT consumer_id, 'retried', count(*) FROM once_attempt
         WHERE last_failed_at >= ? AND last_failed_at < ? GROUP BY consumer_id
        """,
        from,
        to);
  }

  @Override
  public String currentSchema(Connection c) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("SELECT DATABASE()");
        ResultSet rs = ps.executeQuery()) {
      return rs.next() && rs.getString(1) != null ? rs.getString(1) : "?";
    }
  }

  @Override
  public boolean tableExists(Connection c, String table) throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement(
            """
            SELECT count(*) FROM information_schema.tables
             WHERE table_schema = DATABASE() AND table_name = ?
            """)) {
      ps.setString(1, table);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() && rs.getLong(1) > 0;
      }
    }
  }
}
