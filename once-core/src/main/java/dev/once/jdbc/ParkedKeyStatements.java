package dev.once.jdbc;

import dev.once.DeadLetterAction;
import dev.once.ParkedKey;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * The statements on parked keys ({@code once_parked_key}) that {@link JdbcDeadLetters} runs for the
 * admin side: list them with the events behind each, and drop a whole key's events.
 */
final class ParkedKeyStatements {
  /**
   * The events behind a key: its rows enqueued in key order (those an ordered claim holds back),
   * one range of the partial index {@code once_queue_key} each.
   */
  static final String BEHIND =
      """
      (SELECT count(*) FROM once_queue q
        WHERE q.consumer_group = p.consumer_group AND q.destination = p.destination
          AND q.in_key_order AND q.event_key IS NOT NULL AND q.event_key = p.event_key)""";

  private final SqlFlavour flavour;
  private final Sql sql;

  ParkedKeyStatements(SqlFlavour flavour, Sql sql) {
    this.flavour = flavour;
    this.sql = sql;
  }

  List<ParkedKey> list(Connection c, ParkedKeyQuery q) throws SQLException {
    StringBuilder where = new StringBuilder(" WHERE coalesce(l.id, 0) > ?");
    List<Object> params = new ArrayList<>();
    params.add(q.afterId());
    if (q.consumerId() != null) {
      where.append(" AND p.consumer_group = ?");
      params.add(q.consumerId());
    }
    if (q.key() != null) {
      where.append(" AND p.event_key = ?");
      params.add(q.key());
    }
    if (q.deadLetterIds() != null) {
      if (q.deadLetterIds().isEmpty()) {
        return List.of();
      }
      SqlList ids = SqlList.of("bigint", q.deadLetterIds());
      where.append(" AND ").append(sql.in("l.id", ids));
      params.add(ids);
    }
    params.add(q.limit());
    return sql.list(
        c,
        """
        SELECT p.consumer_group, p.destination, p.event_key, p.event_id, p.parked_at,
               coalesce(l.id, 0) AS dead_letter_id, %s AS behind
          FROM once_parked_key p
          LEFT JOIN once_dead_letter l
            ON l.consumer_id = p.consumer_group AND l.event_id = p.event_id
        %s
         ORDER BY coalesce(l.id, 0), p.consumer_group, p.destination, p.event_key
         LIMIT ?
        """
            .formatted(BEHIND, where),
        rs ->
            new ParkedKey(
                rs.getString("consumer_group"),
                rs.getString("destination"),
                rs.getString("event_key"),
                rs.getString("event_id"),
                rs.getLong("dead_letter_id"),
                flavour.readInstant(rs, "parked_at"),
                rs.getLong("behind")),
        params.toArray());
  }

  /**
   * Deletes the rows waiting behind {@code key} (those enqueued in key order when this reads them;
   * a row enqueued later stays and runs), each recorded in the action log under its own event id
   * with {@code action}; returns how many.
   */
  int dropBehind(Connection c, ParkedKey key, DeadLetterAction action) throws SQLException {
    List<Long> ids =
        sql.list(
            c,
            """
            SELECT id FROM once_queue
             WHERE consumer_group = ? AND destination = ? AND in_key_order
               AND event_key IS NOT NULL AND event_key = ?
             ORDER BY id
            """,
            rs -> rs.getLong(1),
            key.consumerGroup(),
            key.destination(),
            key.key());
    if (ids.isEmpty()) {
      return 0;
    }
    SqlList list = SqlList.of("bigint", ids);
    sql.update(
        c,
        """
        INSERT INTO once_dead_letter_action (consumer_id, event_id, action, actor, reason, acted_at)
        SELECT consumer_group, event_id, ?, ?, ?, ? FROM once_queue WHERE %s ORDER BY id
        """
            .formatted(sql.in("id", list)),
        action.action(),
        action.actor(),
        action.reason(),
        action.actedAt(),
        list);
    return sql.update(c, "DELETE FROM once_queue WHERE " + sql.in("id", list), list);
  }
}
