package dev.once.jdbc;

import dev.once.Event;
import dev.once.spi.Delivery;
import dev.once.spi.MessageDecoder;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * The table queue in standard SQL: a claim is a locking read that skips rows other claims hold,
 * then one UPDATE of the rows it took.
 */
public class JdbcQueue implements QueueDialect {
  /** The columns an enqueue writes, for every row one consumer group's copy. */
  protected final String insertCopies;

  /** {@link #insertCopies} with the row's id given: a replayed head back in its old place. */
  private final String insertCopyAt;

  protected final SqlFlavour flavour;
  protected final Sql sql;

  public JdbcQueue(SqlFlavour flavour) {
    this.flavour = flavour;
    this.sql = new Sql(flavour);
    this.insertCopies =
        """
        INSERT INTO once_queue
               (consumer_group, event_id, destination, event_key, event_type, payload, %s,
                enqueued_at, visible_at, in_key_order)
        SELECT b.consumer_group, ?, ?, ?, ?, ?, %s, ?, ?, b.in_key_order
          FROM once_queue_binding b
         WHERE b.destination = ?
        """
            .formatted(flavour.headerColumns(), flavour.headerParameters());
    this.insertCopyAt =
        insertCopies
            .replace("INSERT INTO once_queue\n       (", "INSERT INTO once_queue\n       (id, ")
            .replace("SELECT b.consumer_group", "SELECT ?, b.consumer_group")
            .stripTrailing();
  }

  @Override
  public void bind(Connection c, String destination, String consumerId) throws SQLException {
    sql.insertUnlessDuplicate(
        c,
        "INSERT INTO once_queue_binding (destination, consumer_group) VALUES (?, ?)",
        "destination, consumer_group",
        destination,
        consumerId);
  }

  @Override
  public void markInKeyOrder(Connection c, String destination, String consumerId)
      throws SQLException {
    sql.update(
        c,
        """
        UPDATE once_queue_binding SET in_key_order = ?
         WHERE destination = ? AND consumer_group = ? AND in_key_order = ?
        """,
        true,
        destination,
        consumerId,
        false);
  }

  @Override
  public int[] enqueue(Connection c, List<Event> events, Instant now) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(insertCopies)) {
      int[] counts = new int[events.size()];
      for (int i = 0; i < events.size(); i++) {
        sql.bind(ps, copy(c, events.get(i), now));
        counts[i] = ps.executeUpdate();
      }
      return counts;
    }
  }

  /** The parameters of {@link #insertCopies} for {@code e}. */
  protected Object[] copy(Connection c, Event e, Instant now) throws SQLException {
    return new Object[] {
      e.id().value(),
      e.destination(),
      e.key(),
      e.type(),
      e.payload(),
      SqlHeaders.of(e.headers()),
      now,
      now,
      e.destination()
    };
  }

  @Override
  public int enqueueFor(Connection c, Event e, String consumerId, Instant now) throws SQLException {
    Object[] copy = copy(c, e, now);
    Long head = e.key() == null ? null : unpark(c, e, consumerId);
    Object[] params = new Object[copy.length + (head == null ? 1 : 2)];
    int at = 0;
    if (head != null) {
      params[at++] = head;
    }
    System.arraycopy(copy, 0, params, at, copy.length);
    params[params.length - 1] = consumerId;
    String insert = head == null ? insertCopies.stripTrailing() : insertCopyAt;
    return sql.update(c, insert + " AND b.consumer_group = ?", params);
  }

  /**
   * Releases the key {@code e} heads if {@code consumerId} parked it; returns the head's old queue
   * id (null: not parked by this event).
   */
  private Long unpark(Connection c, Event e, String consumerId) throws SQLException {
    List<Long> head =
        sql.list(
            c,
            """
            SELECT head_id FROM once_parked_key
             WHERE consumer_group = ? AND destination = ? AND event_key = ? AND event_id = ?
            """,
            rs -> rs.getLong(1),
            consumerId,
            e.destination(),
            e.key(),
            e.id().value());
    if (head.isEmpty()) {
      return null;
    }
    sql.update(
        c,
        """
        DELETE FROM once_parked_key
         WHERE consumer_group = ? AND destination = ? AND event_key = ? AND event_id = ?
        """,
        consumerId,
        e.destination(),
        e.key(),
        e.id().value());
    return head.get(0);
  }

  @Override
  public List<Delivery> claim(Connection c, QueueClaim claim) throws SQLException {
    List<Long> ids = new ArrayList<>();
    List<Delivery> deliveries =
        sql.list(
            c,
            """
            SELECT id, event_id, destination, event_key, event_type, payload, %s,
                   delivery_count
              FROM once_queue
             WHERE consumer_group = ? AND visible_at <= ?
             ORDER BY id
             LIMIT ?
            """
                    .formatted(flavour.headerColumns())
                + flavour.skipLocked(),
            rs -> {
              int count = rs.getInt("delivery_count") + 1;
              long id = rs.getLong("id");
              ids.add(id);
              // a row that does not decode is handed out as malformed, to be dead-lettered alone
              return MessageDecoder.decode(JdbcRows.raw(flavour, rs), count, count > 1, id);
            },
            claim.consumerId(),
            claim.now(),
            claim.limit());
    if (!ids.isEmpty()) {
      SqlList list = SqlList.of("bigint", ids);
      sql.update(
          c,
          "UPDATE once_queue SET delivery_count = delivery_count + 1, visible_at = ? WHERE "
              + sql.in("id", list),
          claim.visibleUntil(),
          list);
    }
    return deliveries;
  }

  @Override
  public void ack(Connection c, List<Long> ids) throws SQLException {
    SqlList list = SqlList.of("bigint", ids);
    sql.update(c, "DELETE FROM once_queue WHERE " + sql.in("id", list), list);
  }

  @Override
  public void nack(Connection c, List<Long> ids, Instant visibleAt) throws SQLException {
    SqlList list = SqlList.of("bigint", ids);
    sql.update(
        c, "UPDATE once_queue SET visible_at = ? WHERE " + sql.in("id", list), visibleAt, list);
  }

  @Override
  public void release(Connection c, List<Long> ids, Instant visibleAt) throws SQLException {
    SqlList list = SqlList.of("bigint", ids);
    sql.update(
        c,
        """
        UPDATE once_queue SET visible_at = ?, delivery_count = greatest(delivery_count - 1, 0)
         WHERE %s
        """
            .formatted(sql.in("id", list)),
        visibleAt,
        list);
  }

  @Override
  public long depth(Connection c, String consumerId) throws SQLException {
    return sql.queryLong(c, "SELECT count(*) FROM once_queue WHERE consumer_group = ?", consumerId);
  }

  @Override
  public int purge(Connection c, String consumerId) throws SQLException {
    return sql.update(c, "DELETE FROM once_queue WHERE consumer_group = ?", consumerId);
  }
}
