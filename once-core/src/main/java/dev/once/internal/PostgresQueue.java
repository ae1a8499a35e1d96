package dev.once.internal;

import dev.once.Event;
import dev.once.jdbc.JdbcQueue;
import dev.once.jdbc.JdbcRows;
import dev.once.jdbc.QueueClaim;
import dev.once.spi.Delivery;
import dev.once.spi.MessageDecoder;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * The table queue on PostgreSQL: the standard one, with a batch of copies enqueued in one round
 * trip and a claim in one UPDATE … RETURNING.
 */
public class PostgresQueue extends JdbcQueue {

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
                q.headers, q.trace, q.delivery_count
      """;

  public PostgresQueue(PostgresFlavour flavour) {
    super(flavour);
  }

  @Override
  public int[] enqueue(Connection c, List<Event> events, Instant now) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(insertCopies)) {
      for (Event e : events) {
        sql.bind(ps, copy(c, e, now));
        ps.addBatch();
      }
      return ps.executeBatch();
    }
  }

  @Override
  public List<Delivery> claim(Connection c, QueueClaim claim) throws SQLException {
    List<Delivery> deliveries = new ArrayList<>();
    try (PreparedStatement ps = c.prepareStatement(CLAIM)) {
      sql.bind(ps, claim.consumerId(), claim.now(), claim.limit(), claim.visibleUntil());
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          int count = rs.getInt("delivery_count");
          // a row that does not decode is handed out as malformed, to be dead-lettered alone
          deliveries.add(
              MessageDecoder.decode(JdbcRows.raw(flavour, rs), count, count > 1, rs.getLong("id")));
        }
      }
    }
    return deliveries;
  }
}
