package dev.once.jdbc;

import dev.once.DeadLetter;
import dev.once.DeadLetterAction;
import dev.once.DeadLetterFilter;
import dev.once.DeadLetterGroup;
import dev.once.DeadLetterStatus;
import dev.once.Event;
import dev.once.EventId;
import dev.once.ParkedKey;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/** Dead letters in standard SQL: a filter becomes the conditions of its non-null fields. */
public class JdbcDeadLetters implements DeadLettersDialect {
  /** The columns of a dead letter but its payload and headers. */
  private static final String SUMMARY_COLUMNS =
      """
      id, consumer_id, event_id, destination, event_key, event_type,
      attempts, first_failed_at, last_failed_at, error_class, error_fingerprint,
      error_message, final_attempt_crashed, status, dead_at, resolved_at""";

  protected final SqlFlavour flavour;
  protected final Sql sql;
  private final ParkedKeyStatements parked;

  public JdbcDeadLetters(SqlFlavour flavour) {
    this.flavour = flavour;
    this.sql = new Sql(flavour);
    this.parked = new ParkedKeyStatements(flavour, sql);
  }

  /**
   * Reopens a resolved one with an UPDATE; else an INSERT; if that meets a row inserted meanwhile,
   * the UPDATE once more (an open one stays as it is).
   */
  @Override
  public boolean insertDeadLetter(Connection c, Event event, FailedAttempt f, Instant deadAt)
      throws SQLException {
    SqlHeaders headers = SqlHeaders.of(event.headers());
    Object[] reopen = {
      event.payload(),
      headers,
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
           SET status = 'dead', resolved_at = NULL, payload = ?, %s, attempts = ?,
               first_failed_at = ?, last_failed_at = ?, error_class = ?, error_fingerprint = ?,
               error_message = ?, final_attempt_crashed = ?, dead_at = ?
         WHERE consumer_id = ? AND event_id = ? AND status <> 'dead'
        """
            .formatted(sql.headerAssignments());
    if (sql.update(c, reopenSql, reopen) == 1) {
      return true;
    }
    boolean inserted =
        sql.insertUnlessDuplicate(
            c,
            """
            INSERT INTO once_dead_letter
                   (consumer_id, event_id, destination, event_key, event_type, payload, %s,
                    attempts, first_failed_at, last_failed_at, error_class, error_fingerprint,
                    error_message, final_attempt_crashed, dead_at)
            VALUES (?, ?, ?, ?, ?, ?, %s, ?, ?, ?, ?, ?, ?, ?, ?)
            """
                .formatted(flavour.headerColumns(), flavour.headerParameters()),
            "consumer_id, event_id",
            f.consumerId(),
            event.id().value(),
            event.destination(),
            event.key(),
            event.type(),
            event.payload(),
            headers,
            f.attempts(),
            f.firstFailedAt(),
            f.lastFailedAt(),
            f.errorClass(),
            f.fingerprint(),
            f.message(),
            f.finalAttemptCrashed(),
            deadAt);
    return inserted || sql.update(c, reopenSql, reopen) == 1;
  }

  @Override
  public List<DeadLetter> deadLetters(Connection c, DeadLetterQuery q) throws SQLException {
    Where where = where(q.filter());
    if (q.cursor() != null) {
      where.and(q.newestFirst() ? "id < ?" : "id > ?", q.cursor());
    }
    where.params.add(q.filter().limit());
    return sql.list(
        c,
        "SELECT "
            + SUMMARY_COLUMNS
            + (q.withPayload() ? ", payload, " + flavour.headerColumns() : "")
            + " FROM once_dead_letter"
            + where.text
            + (q.newestFirst() ? " ORDER BY id DESC" : " ORDER BY id")
            + " LIMIT ?",
        rs -> deadLetter(rs, q.withPayload() ? JdbcRows.event(flavour, rs) : summaryEvent(rs)),
        where.params.toArray());
  }

  @Override
  public long countDeadLetters(Connection c, DeadLetterFilter f) throws SQLException {
    Where where = where(f);
    return sql.queryLong(
        c, "SELECT count(*) FROM once_dead_letter" + where.text, where.params.toArray());
  }

  /** The conditions of a filter's non-null fields, and their parameters. */
  private static final class Where {
    final StringBuilder text = new StringBuilder();
    final List<Object> params = new ArrayList<>();

    Where and(String condition, Object param) {
      text.append(text.length() == 0 ? " WHERE " : " AND ").append(condition);
      if (param != null) {
        params.add(param);
      }
      return this;
    }

    Where andIf(Object value, String condition) {
      return value == null ? this : and(condition, value);
    }
  }

  private Where where(DeadLetterFilter f) {
    Where w =
        new Where()
            .andIf(f.consumerId(), "consumer_id = ?")
            .andIf(f.type(), "event_type = ?")
            .andIf(f.fingerprint(), "error_fingerprint = ?")
            .andIf(f.from(), "dead_at >= ?")
            .andIf(f.to(), "dead_at < ?")
            .andIf(f.status(), "status = ?")
            .andIf(f.eventId(), "event_id = ?");
    if (f.ids() != null) {
      SqlList ids = SqlList.of("bigint", List.copyOf(f.ids()));
      w.and(sql.in("id", ids), ids);
    }
    return w;
  }

  /** The event of a summary row: no payload, no headers (not read). */
  private static Event summaryEvent(ResultSet rs) throws SQLException {
    return new Event(
        new EventId(rs.getString("event_id")),
        rs.getString("destination"),
        rs.getString("event_key"),
        rs.getString("event_type"),
        null,
        null);
  }

  private DeadLetter deadLetter(ResultSet rs, Event event) throws SQLException {
    return new DeadLetter(
        rs.getLong("id"),
        rs.getString("consumer_id"),
        event,
        rs.getInt("attempts"),
        flavour.readInstant(rs, "first_failed_at"),
        flavour.readInstant(rs, "last_failed_at"),
        rs.getString("error_class"),
        rs.getString("error_fingerprint"),
        rs.getString("error_message"),
        rs.getBoolean("final_attempt_crashed"),
        DeadLetterStatus.of(rs.getString("status")),
        flavour.readInstant(rs, "dead_at"),
        flavour.readInstant(rs, "resolved_at"));
  }

  @Override
  public List<DeadLetterGroup> deadLetterGroups(Connection c, String status, int limit)
      throws SQLException {
    Where where = new Where().andIf(status, "status = ?");
    where.params.add(limit);
    return sql.list(
        c,
        """
        SELECT consumer_id, event_type, error_fingerprint, min(error_class) AS error_class,
               count(*) AS count, min(dead_at) AS first_dead_at, max(dead_at) AS last_dead_at,
               max(error_message) AS sample_message
          FROM once_dead_letter%s
         GROUP BY consumer_id, event_type, error_fingerprint
         ORDER BY count(*) DESC, consumer_id, event_type, error_fingerprint
         LIMIT ?
        """
            .formatted(where.text),
        rs ->
            new DeadLetterGroup(
                rs.getString("consumer_id"),
                rs.getString("event_type"),
                rs.getString("error_fingerprint"),
                rs.getString("error_class"),
                rs.getLong("count"),
                flavour.readInstant(rs, "first_dead_at"),
                flavour.readInstant(rs, "last_dead_at"),
                rs.getString("sample_message")),
        where.params.toArray());
  }

  @Override
  public List<DeadLetterAction> deadLetterActions(Connection c, String consumerId, String eventId)
      throws SQLException {
    return sql.list(
        c,
        """
        SELECT action, actor, reason, acted_at FROM once_dead_letter_action
         WHERE consumer_id = ? AND event_id = ?
         ORDER BY id
        """,
        rs ->
            new DeadLetterAction(
                rs.getString("action"),
                rs.getString("actor"),
                rs.getString("reason"),
                flavour.readInstant(rs, "acted_at")),
        consumerId,
        eventId);
  }

  @Override
  public boolean resolveDeadLetter(Connection c, long id, String status, Instant at)
      throws SQLException {
    return sql.update(
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
    sql.update(
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
    sql.update(
        c,
        """
        UPDATE once_outbox SET attempts = 0, next_attempt_at = NULL, last_error = NULL
         WHERE event_id = ? AND sent_at IS NULL
        """,
        eventId);
  }

  @Override
  public void deleteParkedOutbox(Connection c, String eventId) throws SQLException {
    sql.update(
        c,
        "DELETE FROM once_outbox WHERE event_id = ? AND sent_at IS NULL AND next_attempt_at = "
            + flavour.never(),
        eventId);
  }

  @Override
  public boolean releaseParkedKey(Connection c, String consumerId, String eventId)
      throws SQLException {
    return !ParkedKeyStatements.release(sql, c, consumerId, eventId).isEmpty();
  }

  @Override
  public List<ParkedKey> parkedKeys(Connection c, ParkedKeyQuery query) throws SQLException {
    return parked.list(c, query);
  }

  @Override
  public int dropBehindParkedKey(Connection c, ParkedKey key, DeadLetterAction action)
      throws SQLException {
    return parked.dropBehind(c, key, action);
  }
}
