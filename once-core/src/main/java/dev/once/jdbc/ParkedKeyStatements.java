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

  /** (parked, group, destination, key, !parked): marks or clears the rows of one key. */
  private static final String MARK =
      """
      UPDATE once_queue SET parked = ?
       WHERE consumer_group = ? AND destination = ? AND in_key_order
         AND event_key IS NOT NULL AND event_key = ? AND parked = ?
      """;

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

  /**
   * Marks {@code parked} the rows of the keys whose heads, the rows {@code heads}, were just
   * parked: out of the claim's reach ({@code once_queue_ready} leaves them out) until released.
   */
  static void markParked(Sql sql, Connection c, SqlList heads) throws SQLException {
    List<String[]> keys =
        sql.list(
            c,
            "SELECT consumer_group, destination, event_key FROM once_parked_key WHERE "
                + sql.in("head_id", heads),
            rs -> new String[] {rs.getString(1), rs.getString(2), rs.getString(3)},
            heads);
    for (String[] k : keys) {
      sql.update(c, MARK, true, k[0], k[1], k[2], false);
    }
  }

  /**
   * Releases the key {@code consumerGroup} parked behind event {@code eventId}, if any: the parked
   * key is locked, its rows' marks cleared (back in the claim's reach, in their places: order is by
   * id), and the parked key deleted, in the caller's transaction. The lock comes first: an enqueue
   * that read the parked key {@code FOR SHARE} (and marked its row) has committed before the marks
   * are cleared, and one after finds the key gone (READ COMMITTED). Returns the head ids of the
   * keys released (none: nothing was parked behind the event).
   */
  static List<Long> release(Sql sql, Connection c, String consumerGroup, String eventId)
      throws SQLException {
    List<String[]> keys =
        sql.list(
            c,
            """
            SELECT destination, event_key, head_id FROM once_parked_key
             WHERE consumer_group = ? AND event_id = ?
               FOR UPDATE
            """,
            rs -> new String[] {rs.getString(1), rs.getString(2), Long.toString(rs.getLong(3))},
            consumerGroup,
            eventId);
    if (keys.isEmpty()) {
      return List.of();
    }
    List<Long> heads = new ArrayList<>();
    for (String[] k : keys) {
      sql.update(c, MARK, false, consumerGroup, k[0], k[1], true);
      heads.add(Long.parseLong(k[2]));
    }
    sql.update(
        c,
        "DELETE FROM once_parked_key WHERE consumer_group = ? AND event_id = ?",
        consumerGroup,
        eventId);
    return heads;
  }
}
