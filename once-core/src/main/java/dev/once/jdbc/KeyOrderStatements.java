package dev.once.jdbc;

import dev.once.Event;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * The reads and writes of ordered groups that {@link JdbcQueue} runs besides its claims and acks:
 * which locked rows head their key, and the key lanes of ordered groups on a broker that orders by
 * key (docs/ORDERING.md, "Ordered on a broker"): whether a group has one, which keys of a batch are
 * parked or in it, and a dead-lettered record's park with its place reserved.
 */
final class KeyOrderStatements {
  private final SqlFlavour flavour;
  private final Sql sql;

  KeyOrderStatements(SqlFlavour flavour, Sql sql) {
    this.flavour = flavour;
    this.sql = sql;
  }

  /** Those of {@code locked} that head their key and whose key is not parked: one plain read. */
  Set<Long> heads(Connection c, Set<Long> locked) throws SQLException {
    SqlList candidates = SqlList.of("bigint", new ArrayList<>(locked));
    return new HashSet<>(
        sql.list(
            c,
            """
            SELECT q.id FROM once_queue q
             WHERE %s
               AND (q.event_key IS NULL
                    OR NOT EXISTS (SELECT 1 FROM once_queue e
                                    WHERE e.consumer_group = q.consumer_group
                                      AND e.event_key = q.event_key
                                      AND e.id < q.id
                                      AND e.destination = q.destination
                                      AND e.in_key_order)
                       AND NOT EXISTS (SELECT 1 FROM once_parked_key p
                                        WHERE p.consumer_group = q.consumer_group
                                          AND p.destination = q.destination
                                          AND p.event_key = q.event_key))
            """
                .formatted(sql.in("q.id", candidates)),
            rs -> rs.getLong(1),
            candidates));
  }

  /** Whether the group has a key lane: bound in key order ({@link QueueDialect#hasLane}). */
  boolean hasLane(Connection c, String destination, String consumerId) throws SQLException {
    return sql.first(
            c,
            "SELECT 1 FROM once_queue_binding"
                + " WHERE destination = ? AND consumer_group = ? AND in_key_order = ?",
            rs -> rs.getInt(1),
            destination,
            consumerId,
            true)
        != null;
  }

  /** {@link QueueDialect#laneKeys}, one statement. */
  Map<String, String> laneKeys(
      Connection c, String destination, String consumerId, Collection<String> keys)
      throws SQLException {
    SqlList list = SqlList.of("text", new ArrayList<>(keys));
    Map<String, String> hits = new HashMap<>();
    sql.list(
        c,
        """
        SELECT p.event_key, p.event_id FROM once_parked_key p
         WHERE p.consumer_group = ? AND p.destination = ? AND %s
        UNION ALL
        SELECT DISTINCT q.event_key, '' FROM once_queue q
         WHERE q.consumer_group = ? AND q.destination = ? AND q.in_key_order AND %s
        """
            .formatted(sql.in("p.event_key", list), sql.in("q.event_key", list)),
        rs -> hits.merge(rs.getString(1), rs.getString(2), (a, b) -> a.isEmpty() ? b : a),
        consumerId,
        destination,
        list,
        consumerId,
        destination,
        list);
    return hits;
  }

  /**
   * The head's place is the id of a placeholder row ({@link #reserveQueueId}, two statements), then
   * the parked key is inserted unless its key is parked already: three statements, run for a dead
   * letter only. A database with a statement that takes a value of the id's sequence does it in one
   * (PostgreSQL's queue).
   */
  void parkBrokerHead(Connection c, String consumerId, Event e, Instant now) throws SQLException {
    long headId = reserveQueueId(c, consumerId, e, now);
    sql.insertUnlessDuplicate(
        c,
        """
        INSERT INTO once_parked_key
               (consumer_group, destination, event_key, event_id, head_id, parked_at)
        VALUES (?, ?, ?, ?, ?, ?)
        """,
        "consumer_group, destination, event_key",
        consumerId,
        e.destination(),
        e.key(),
        e.id().value(),
        headId,
        now);
  }

  /**
   * A fresh value of {@code once_queue.id}'s generated ids (MariaDB's and MySQL's {@code
   * AUTO_INCREMENT} have no statement that only takes one): a placeholder row is inserted and
   * deleted again in the caller's transaction, so no one else ever reads it. Its id is never handed
   * out again (InnoDB keeps the counter across restarts), so the replayed head can take it. The
   * placeholder is marked parked and has no key: outside every claim's range of the ready index and
   * every key's rows.
   */
  private long reserveQueueId(Connection c, String consumerId, Event e, Instant now)
      throws SQLException {
    long id;
    try (PreparedStatement ps =
        c.prepareStatement(
            """
            INSERT INTO once_queue
                   (consumer_group, event_id, destination, event_key, event_type, payload, %s,
                    enqueued_at, visible_at, in_key_order, parked)
            VALUES (?, ?, ?, NULL, ?, ?, %s, ?, ?, ?, ?)
            """
                .formatted(flavour.headerColumns(), flavour.headerParameters()),
            java.sql.Statement.RETURN_GENERATED_KEYS)) {
      sql.bind(
          ps,
          consumerId,
          e.id().value(),
          e.destination(),
          e.type(),
          new byte[0],
          SqlHeaders.of(Map.of()),
          now,
          now,
          false,
          true);
      ps.executeUpdate();
      try (var keys = ps.getGeneratedKeys()) {
        if (!keys.next()) {
          throw new SQLException("no generated id for the placeholder of a parked head");
        }
        id = keys.getLong(1);
      }
    }
    sql.update(c, "DELETE FROM once_queue WHERE id = ?", id);
    return id;
  }
}
