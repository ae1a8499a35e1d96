package dev.once.internal;

import dev.once.ConsumerActivity;
import dev.once.DeadLetter;
import dev.once.DeadLetterAction;
import dev.once.DeadLetterFilter;
import dev.once.DeadLetterGroup;
import dev.once.Event;
import dev.once.OperationStatus;
import dev.once.WorkloadStatus;
import dev.once.spi.AdminDialect;
import dev.once.spi.AttemptCount;
import dev.once.spi.FailedAttempt;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** Attempts, dead letters, retention, status and the schema check on PostgreSQL. */
public class PostgresAdmin implements AdminDialect {

  /** Advisory lock of the retention janitor, one per schema. */
  private static final String RETENTION_LOCK = "hashtext(current_schema() || '.once_retention')";

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
             WHERE consumer_id = ? AND event_id = ANY(?::text[])
            """)) {
      Jdbc.bind(ps, consumerId, c.createArrayOf("text", eventIds.toArray(new String[0])));
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          known.put(
              rs.getString(1),
              new AttemptCount(
                  rs.getInt(2),
                  rs.getTimestamp(3).toInstant(),
                  rs.getString(4),
                  rs.getString(5),
                  rs.getString(6)));
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
            INSERT INTO once_attempt AS a
                   (consumer_id, event_id, attempts, first_failed_at, last_failed_at,
                    error_class, error_fingerprint, error_message)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (consumer_id, event_id) DO UPDATE
               SET attempts = greatest(a.attempts + 1, EXCLUDED.attempts),
                   last_failed_at = EXCLUDED.last_failed_at,
                   error_class = EXCLUDED.error_class,
                   error_fingerprint = EXCLUDED.error_fingerprint,
                   error_message = EXCLUDED.error_message
            """)) {
      for (FailedAttempt a : attempts) {
        Jdbc.bind(
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
    Jdbc.update(
        c, "DELETE FROM once_attempt WHERE consumer_id = ? AND event_id = ?", consumerId, eventId);
  }

  @Override
  public Map<String, Integer> loadSuspects(Connection c, String consumerId, List<String> eventIds)
      throws SQLException {
    Map<String, Integer> levels = new HashMap<>();
    try (PreparedStatement ps =
        c.prepareStatement(
            """
            SELECT event_id, level FROM once_suspect
             WHERE consumer_id = ? AND event_id = ANY(?::text[])
            """)) {
      Jdbc.bind(ps, consumerId, c.createArrayOf("text", eventIds.toArray(new String[0])));
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          levels.put(rs.getString(1), rs.getInt(2));
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
    Jdbc.update(
        c,
        """
        INSERT INTO once_suspect AS s (consumer_id, event_id, level, raised_at)
        SELECT ?, u.id, u.level, ? FROM unnest(?::text[], ?::int[]) AS u(id, level)
        ON CONFLICT (consumer_id, event_id) DO UPDATE
           SET level = greatest(s.level, EXCLUDED.level), raised_at = EXCLUDED.raised_at
        """,
        consumerId,
        raisedAt,
        c.createArrayOf("text", ids.toArray(new String[0])),
        Jdbc.intArray(c, ids.stream().map(levels::get).toList()));
  }

  @Override
  public void clearSuspects(Connection c, String consumerId, List<String> eventIds)
      throws SQLException {
    Jdbc.update(
        c,
        "DELETE FROM once_suspect WHERE consumer_id = ? AND event_id = ANY(?::text[])",
        consumerId,
        c.createArrayOf("text", eventIds.toArray(new String[0])));
  }

  @Override
  public boolean insertDeadLetter(Connection c, Event event, FailedAttempt f, Instant deadAt)
      throws SQLException {
    return Jdbc.update(
            c,
            """
            INSERT INTO once_dead_letter AS d
                   (consumer_id, event_id, destination, event_key, event_type, payload, headers,
                    attempts, first_failed_at, last_failed_at, error_class, error_fingerprint,
                    error_message, final_attempt_crashed, dead_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (consumer_id, event_id) DO UPDATE
               SET status = 'dead', resolved_at = NULL, dead_at = EXCLUDED.dead_at,
                   payload = EXCLUDED.payload, headers = EXCLUDED.headers,
                   attempts = EXCLUDED.attempts, first_failed_at = EXCLUDED.first_failed_at,
                   last_failed_at = EXCLUDED.last_failed_at, error_class = EXCLUDED.error_class,
                   error_fingerprint = EXCLUDED.error_fingerprint,
                   error_message = EXCLUDED.error_message,
                   final_attempt_crashed = EXCLUDED.final_attempt_crashed
             WHERE d.status <> 'dead'
            """,
            f.consumerId(),
            event.id().value(),
            event.destination(),
            event.key(),
            event.type(),
            event.payload(),
            Jdbc.headers(c, event.headers()),
            f.attempts(),
            f.firstFailedAt(),
            f.lastFailedAt(),
            f.errorClass(),
            f.fingerprint(),
            f.message(),
            f.finalAttemptCrashed(),
            deadAt)
        == 1;
  }

  /** The columns of a dead letter. */
  private static final String DEAD_LETTER_COLUMNS =
      """
      SELECT id, consumer_id, event_id, destination, event_key, event_type, payload, headers,
             attempts, first_failed_at, last_failed_at, error_class, error_fingerprint,
             error_message, final_attempt_crashed, status, dead_at, resolved_at
        FROM once_dead_letter
      """;

  /** A {@link DeadLetterFilter}: each condition holds when its parameter is null. */
  private static final String FILTER =
      """
       WHERE (?::text IS NULL OR consumer_id = ?)
         AND (?::text IS NULL OR event_type = ?)
         AND (?::text IS NULL OR error_fingerprint = ?)
         AND (?::timestamptz IS NULL OR dead_at >= ?)
         AND (?::timestamptz IS NULL OR dead_at < ?)
         AND (?::text IS NULL OR status = ?)
         AND (?::text IS NULL OR event_id = ?)
         AND (?::bigint[] IS NULL OR id = ANY(?::bigint[]))
      """;

  @Override
  public List<DeadLetter> selectDeadLetters(Connection c, DeadLetterFilter f) throws SQLException {
    return deadLetters(
        c, DEAD_LETTER_COLUMNS + FILTER + " ORDER BY id LIMIT ?", filter(c, f, f.limit()));
  }

  @Override
  public List<DeadLetter> pageDeadLetters(Connection c, DeadLetterFilter f, long beforeId)
      throws SQLException {
    return deadLetters(
        c,
        DEAD_LETTER_COLUMNS + FILTER + " AND id < ? ORDER BY id DESC LIMIT ?",
        filter(c, f, beforeId, f.limit()));
  }

  @Override
  public List<DeadLetter> selectDeadLetterSummaries(Connection c, DeadLetterFilter f, long afterId)
      throws SQLException {
    List<DeadLetter> out = new ArrayList<>();
    try (PreparedStatement ps =
        c.prepareStatement(
            AdminRows.DEAD_LETTER_SUMMARY_COLUMNS + FILTER + " AND id > ? ORDER BY id LIMIT ?")) {
      Jdbc.bind(ps, filter(c, f, afterId, f.limit()));
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          out.add(AdminRows.deadLetter(AdminRows.POSTGRES, rs, AdminRows.summaryEvent(rs)));
        }
      }
    }
    return out;
  }

  @Override
  public long countDeadLetters(Connection c, DeadLetterFilter f) throws SQLException {
    return Jdbc.queryLong(c, "SELECT count(*) FROM once_dead_letter" + FILTER, filter(c, f));
  }

  private static List<DeadLetter> deadLetters(Connection c, String sql, Object[] params)
      throws SQLException {
    List<DeadLetter> out = new ArrayList<>();
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      Jdbc.bind(ps, params);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          out.add(AdminRows.deadLetter(AdminRows.POSTGRES, rs, Jdbc.event(rs)));
        }
      }
    }
    return out;
  }

  /** The parameters of {@link #FILTER}, then {@code more}. */
  private static Object[] filter(Connection c, DeadLetterFilter f, Object... more)
      throws SQLException {
    java.sql.Array ids = f.ids() == null ? null : Jdbc.longArray(c, List.copyOf(f.ids()));
    List<Object> params =
        new ArrayList<>(
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
                f.eventId(),
                ids,
                ids));
    params.addAll(List.of(more));
    return params.toArray();
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
             WHERE (?::text IS NULL OR status = ?)
             GROUP BY consumer_id, event_type, error_fingerprint
             ORDER BY count(*) DESC, consumer_id, event_type, error_fingerprint
             LIMIT ?
            """)) {
      Jdbc.bind(ps, status, status, limit);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          out.add(AdminRows.group(AdminRows.POSTGRES, rs));
        }
      }
    }
    return out;
  }

  @Override
  public List<DeadLetterAction> deadLetterActions(Connection c, String consumerId, String eventId)
      throws SQLException {
    return AdminRows.actions(
        AdminRows.POSTGRES,
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
    return Jdbc.update(
            c,
            """
            UPDATE once_dead_letter SET status = ?, resolved_at = ?
             WHERE id = ? AND status = 'dead'
            """,
            status,
            at,
            id)
        == 1;
  }

  @Override
  public void insertDeadLetterAction(
      Connection c, String consumerId, String eventId, DeadLetterAction a) throws SQLException {
    Jdbc.update(
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
    Jdbc.update(
        c,
        """
        UPDATE once_outbox SET attempts = 0, next_attempt_at = NULL, last_error = NULL
         WHERE event_id = ? AND sent_at IS NULL
        """,
        eventId);
  }

  @Override
  public void deleteParkedOutbox(Connection c, String eventId) throws SQLException {
    Jdbc.update(
        c,
        """
        DELETE FROM once_outbox
         WHERE event_id = ? AND sent_at IS NULL AND next_attempt_at = 'infinity'
        """,
        eventId);
  }

  @Override
  public boolean tryRetentionLock(Connection c) throws SQLException {
    return Jdbc.queryBoolean(c, "SELECT pg_try_advisory_lock(%s)".formatted(RETENTION_LOCK));
  }

  @Override
  public void retentionUnlock(Connection c) throws SQLException {
    Jdbc.execute(c, "SELECT pg_advisory_unlock(%s)".formatted(RETENTION_LOCK));
  }

  @Override
  public int deleteOldMarkers(Connection c, Instant before, int limit) throws SQLException {
    return Jdbc.update(
        c,
        """
        DELETE FROM once_inbox
         WHERE ctid = ANY(ARRAY(SELECT ctid FROM once_inbox WHERE processed_at < ? LIMIT ?))
        """,
        before,
        limit);
  }

  @Override
  public int deleteSentOutbox(Connection c, Instant before, int limit) throws SQLException {
    return Jdbc.update(
        c,
        """
        WITH old AS MATERIALIZED (
          SELECT id FROM once_outbox
           WHERE sent_at IS NOT NULL AND sent_at < ?
           ORDER BY sent_at LIMIT ?
           FOR UPDATE SKIP LOCKED)
        DELETE FROM once_outbox o USING old WHERE o.id = old.id
        """,
        before,
        limit);
  }

  @Override
  public int deleteResolvedDeadLetters(Connection c, Instant before, int limit)
      throws SQLException {
    return Jdbc.update(
        c,
        """
        DELETE FROM once_dead_letter
         WHERE id IN (SELECT id FROM once_dead_letter
                       WHERE status <> 'dead' AND resolved_at < ? LIMIT ?)
        """,
        before,
        limit);
  }

  @Override
  public int deleteOldSuspects(Connection c, Instant before, int limit) throws SQLException {
    return Jdbc.update(
        c,
        """
        DELETE FROM once_suspect
         WHERE (consumer_id, event_id) IN (SELECT consumer_id, event_id FROM once_suspect
                                            WHERE raised_at < ? LIMIT ?)
        """,
        before,
        limit);
  }

  @Override
  public int deleteOldAttempts(Connection c, Instant before, int limit) throws SQLException {
    return Jdbc.update(
        c,
        """
        DELETE FROM once_attempt
         WHERE (consumer_id, event_id) IN (SELECT consumer_id, event_id FROM once_attempt
                                            WHERE last_failed_at < ? LIMIT ?)
        """,
        before,
        limit);
  }

  @Override
  public WorkloadStatus status(Connection c, Instant now) throws SQLException {
    return new WorkloadStatus(
        now,
        AdminRows.backlogs(
            AdminRows.POSTGRES,
            c,
            """
            SELECT destination,
                   count(*) FILTER (WHERE next_attempt_at IS DISTINCT FROM 'infinity') AS pending,
                   count(*) FILTER (WHERE next_attempt_at = 'infinity') AS parked,
                   coalesce(extract(epoch FROM ?::timestamptz - min(created_at)
                       FILTER (WHERE next_attempt_at IS DISTINCT FROM 'infinity')), 0) AS oldest
              FROM once_outbox
             WHERE sent_at IS NULL
             GROUP BY destination
             ORDER BY destination
            """,
            true,
            now),
        AdminRows.backlogs(
            AdminRows.POSTGRES,
            c,
            """
            SELECT consumer_group, count(*) AS waiting,
                   coalesce(extract(epoch FROM ?::timestamptz - min(enqueued_at)), 0) AS oldest
              FROM once_queue
             GROUP BY consumer_group
             ORDER BY consumer_group
            """,
            false,
            now),
        AdminRows.backlogs(
            AdminRows.POSTGRES,
            c,
            """
            SELECT consumer_id, count(*) AS waiting,
                   coalesce(extract(epoch FROM ?::timestamptz - min(first_failed_at)), 0) AS oldest
              FROM once_attempt
             GROUP BY consumer_id
             ORDER BY consumer_id
            """,
            false,
            now),
        AdminRows.deadLetterCounts(
            c,
            """
            SELECT consumer_id, count(*) FROM once_dead_letter
             WHERE status = 'dead'
             GROUP BY consumer_id
             ORDER BY consumer_id
            """));
  }

  @Override
  public OperationStatus operationStatus(Connection c, Instant now, int limit) throws SQLException {
    return new OperationStatus(
        now,
        AdminRows.stateCounts(
            AdminRows.POSTGRES,
            c,
            """
            SELECT state, count(*) AS count,
                   coalesce(extract(epoch FROM ?::timestamptz - min(created_at)), 0) AS oldest
              FROM once_operation
             GROUP BY state
             ORDER BY state
            """,
            now),
        AdminRows.uncertain(
            AdminRows.POSTGRES,
            c,
            """
            SELECT operation_id, provider, idempotency_key, state, attempts,
                   extract(epoch FROM ?::timestamptz - created_at) AS age, next_attempt_at,
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
        AdminRows.POSTGRES,
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
    List<String> s = Jdbc.strings(c, "SELECT current_schema()", new ArrayList<>());
    return s.isEmpty() ? "?" : s.get(0);
  }

  @Override
  public boolean tableExists(Connection c, String table) throws SQLException {
    return Jdbc.queryLong(
            c,
            """
            SELECT count(*) FROM information_schema.tables
             WHERE table_schema = current_schema() AND table_name = ?
            """,
            table)
        > 0;
  }
}
