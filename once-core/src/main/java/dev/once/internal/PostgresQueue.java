package dev.once.internal;

import dev.once.Event;
import dev.once.spi.Delivery;
import dev.once.spi.MessageDecoder;
import dev.once.spi.QueueClaim;
import dev.once.spi.QueueDialect;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/** The table queue on PostgreSQL. */
public class PostgresQueue implements QueueDialect {

  /**
   * (consumer_group, now, limit, visible_until) → the claimed rows. The rows to claim are picked
   * once, in a materialized step: a plan that re-ran the pick for every row it updates turned one
   * claim into a minute of CPU on a table with misleading statistics. Public for the plan test.
   */
  public static final String CLAIM =
      """
      WITH c AS MATERIALIZED (
        SELECT id FROM once_queue
         WHERE consumer_group = ? AND visible_at <= ?
         ORDER BY id
         LIMIT ?
         FOR UPDATE SKIP LOCKED)
      UPDATE once_queue q
         SET delivery_count = q.delivery_count + 1, visible_at = ?
        FROM c
       WHERE q.id = c.id
      RETURNING q.id, q.event_id, q.destination, q.event_key, q.event_type, q.payload,
                q.headers, q.delivery_count
      """;

  @Override
  public void bind(Connection c, String destination, String consumerGroup) throws SQLException {
    Jdbc.update(
        c,
        """
        INSERT INTO once_queue_binding (destination, consumer_group)
        VALUES (?, ?)
        ON CONFLICT DO NOTHING
        """,
        destination,
        consumerGroup);
  }

  @Override
  public int[] enqueue(Connection c, List<Event> events, Instant now) throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement(
            """
            INSERT INTO once_queue
                   (consumer_group, event_id, destination, event_key, event_type, payload, headers,
                    enqueued_at, visible_at)
            SELECT b.consumer_group, ?, ?, ?, ?, ?, ?, ?, ?
              FROM once_queue_binding b
             WHERE b.destination = ?
            """)) {
      for (Event e : events) {
        Jdbc.bind(
            ps,
            e.id().value(),
            e.destination(),
            e.key(),
            e.type(),
            e.payload(),
            Jdbc.headers(c, e.headers()),
            now,
            now,
            e.destination());
        ps.addBatch();
      }
      return ps.executeBatch();
    }
  }

  @Override
  public int enqueueFor(Connection c, Event e, String consumerGroup, Instant now)
      throws SQLException {
    return Jdbc.update(
        c,
        """
        INSERT INTO once_queue
               (consumer_group, event_id, destination, event_key, event_type, payload, headers,
                enqueued_at, visible_at)
        SELECT b.consumer_group, ?, ?, ?, ?, ?, ?, ?, ?
          FROM once_queue_binding b
         WHERE b.destination = ? AND b.consumer_group = ?
        """,
        e.id().value(),
        e.destination(),
        e.key(),
        e.type(),
        e.payload(),
        Jdbc.headers(c, e.headers()),
        now,
        now,
        e.destination(),
        consumerGroup);
  }

  @Override
  public List<Delivery> claim(Connection c, QueueClaim claim) throws SQLException {
    List<Delivery> deliveries = new ArrayList<>();
    try (PreparedStatement ps = c.prepareStatement(CLAIM)) {
      Jdbc.bind(ps, claim.consumerGroup(), claim.now(), claim.limit(), claim.visibleUntil());
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          int count = rs.getInt("delivery_count");
          // a row that does not decode is handed out as malformed, to be dead-lettered alone
          deliveries.add(MessageDecoder.decode(Jdbc.raw(rs), count, count > 1, rs.getLong("id")));
        }
      }
    }
    return deliveries;
  }

  @Override
  public void ack(Connection c, List<Long> ids) throws SQLException {
    Jdbc.update(c, "DELETE FROM once_queue WHERE id = ANY(?::bigint[])", Jdbc.longArray(c, ids));
  }

  @Override
  public void nack(Connection c, List<Long> ids, Instant visibleAt) throws SQLException {
    Jdbc.update(
        c,
        "UPDATE once_queue SET visible_at = ? WHERE id = ANY(?::bigint[])",
        visibleAt,
        Jdbc.longArray(c, ids));
  }

  @Override
  public void release(Connection c, List<Long> ids, Instant visibleAt) throws SQLException {
    Jdbc.update(
        c,
        """
        UPDATE once_queue SET visible_at = ?, delivery_count = greatest(delivery_count - 1, 0)
         WHERE id = ANY(?::bigint[])
        """,
        visibleAt,
        Jdbc.longArray(c, ids));
  }

  @Override
  public long depth(Connection c, String consumerGroup) throws SQLException {
    return Jdbc.queryLong(
        c, "SELECT count(*) FROM once_queue WHERE consumer_group = ?", consumerGroup);
  }

  @Override
  public int purge(Connection c, String consumerGroup) throws SQLException {
    return Jdbc.update(c, "DELETE FROM once_queue WHERE consumer_group = ?", consumerGroup);
  }
}
