package dev.once.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** Attempts and suspects in standard SQL, upserts in the flavour's form. */
public class JdbcAttempts implements AttemptsDialect {
  protected final SqlFlavour flavour;
  protected final Sql sql;

  public JdbcAttempts(SqlFlavour flavour) {
    this.flavour = flavour;
    this.sql = new Sql(flavour);
  }

  @Override
  public Map<String, AttemptCount> loadAttempts(
      Connection c, String consumerId, List<String> eventIds) throws SQLException {
    Map<String, AttemptCount> known = new HashMap<>();
    SqlList ids = SqlList.of("text", eventIds);
    for (Map.Entry<String, AttemptCount> e :
        sql.list(
            c,
            """
            SELECT event_id, attempts, first_failed_at, error_class, error_fingerprint,
                   error_message
              FROM once_attempt
             WHERE consumer_id = ? AND %s
            """
                .formatted(sql.in("event_id", ids)),
            rs ->
                Map.entry(
                    rs.getString("event_id"),
                    new AttemptCount(
                        rs.getInt("attempts"),
                        flavour.readInstant(rs, "first_failed_at"),
                        rs.getString("error_class"),
                        rs.getString("error_fingerprint"),
                        rs.getString("error_message"))),
            consumerId,
            ids)) {
      known.put(e.getKey(), e.getValue());
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
            """
                + flavour.onConflictUpdate(
                    "consumer_id, event_id",
                    """
                    attempts = greatest(once_attempt.attempts + 1, %s),
                    last_failed_at = %s, error_class = %s, error_fingerprint = %s,
                    error_message = %s"""
                        .formatted(
                            flavour.inserted("attempts"),
                            flavour.inserted("last_failed_at"),
                            flavour.inserted("error_class"),
                            flavour.inserted("error_fingerprint"),
                            flavour.inserted("error_message"))))) {
      for (FailedAttempt a : attempts) {
        sql.bind(
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
    sql.update(
        c, "DELETE FROM once_attempt WHERE consumer_id = ? AND event_id = ?", consumerId, eventId);
  }

  @Override
  public Map<String, Integer> loadSuspects(Connection c, String consumerId, List<String> eventIds)
      throws SQLException {
    Map<String, Integer> levels = new HashMap<>();
    SqlList ids = SqlList.of("text", eventIds);
    for (Map.Entry<String, Integer> e :
        sql.list(
            c,
            "SELECT event_id, level FROM once_suspect WHERE consumer_id = ? AND "
                + sql.in("event_id", ids),
            rs -> Map.entry(rs.getString("event_id"), rs.getInt("level")),
            consumerId,
            ids)) {
      levels.put(e.getKey(), e.getValue());
    }
    return levels;
  }

  @Override
  public void raiseSuspects(
      Connection c, String consumerId, Map<String, Integer> levels, Instant raisedAt)
      throws SQLException {
    if (levels.isEmpty()) {
      return;
    }
    List<String> ids = levels.keySet().stream().sorted().toList(); // one lock order for all
    List<Object> values = new ArrayList<>(ids.size() * 4);
    for (String id : ids) {
      values.addAll(List.of(consumerId, id, levels.get(id), raisedAt));
    }
    sql.update(
        c,
        "INSERT INTO once_suspect (consumer_id, event_id, level, raised_at) VALUES "
            + String.join(", ", Collections.nCopies(ids.size(), "(?, ?, ?, ?)"))
            + "\n"
            + flavour.onConflictUpdate(
                "consumer_id, event_id",
                "level = greatest(once_suspect.level, %s), raised_at = %s"
                    .formatted(flavour.inserted("level"), flavour.inserted("raised_at"))),
        values.toArray());
  }

  @Override
  public void clearSuspects(Connection c, String consumerId, List<String> eventIds)
      throws SQLException {
    SqlList ids = SqlList.of("text", eventIds);
    sql.update(
        c,
        "DELETE FROM once_suspect WHERE consumer_id = ? AND " + sql.in("event_id", ids),
        consumerId,
        ids);
  }

  @Override
  public int clearSettled(Connection c, String consumerId) throws SQLException {
    int cleared = 0;
    for (String table : List.of("once_attempt", "once_suspect")) {
      cleared +=
          sql.update(
              c,
              "DELETE FROM "
                  + table
                  + " WHERE consumer_id = ? AND event_id IN"
                  + " (SELECT event_id FROM once_inbox WHERE consumer_id = ?)",
              consumerId,
              consumerId);
    }
    return cleared;
  }
}
