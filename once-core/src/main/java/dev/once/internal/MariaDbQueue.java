package dev.once.internal;

import static dev.once.internal.MariaDbJdbc.in;
import static dev.once.internal.MariaDbJdbc.params;

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

/** The table queue on MariaDB/MySQL: claims lock with {@code FOR UPDATE SKIP LOCKED}. */
public class MariaDbQueue implements QueueDialect {

  @Override
  public void bind(Connection c, String destination, String consumerGroup) throws SQLException {
    MariaDbJdbc.insertUnlessDuplicate(
        c,
        "INSERT INTO once_queue_binding (destination, consumer_group) VALUES (?, ?)",
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
      int[] counts = new int[events.size()];
      for (int i = 0; i < events.size(); i++) {
        Event e = events.get(i);
        MariaDbJdbc.bind(
            ps,
            e.id().value(),
            e.destination(),
            e.key(),
            e.type(),
            e.payload(),
            MariaDbJdbc.headers(e.headers()),
            now,
            now,
            e.destination());
        counts[i] = ps.executeUpdate();
      }
      return counts;
    }
  }

  @Override
  public int enqueueFor(Connection c, Event e, String consumerGroup, Instant now)
      throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement(
            """
            INSERT INTO once_queue
                   (consumer_group, event_id, destination, event_key, event_type, payload, headers,
                    enqueued_at, visible_at)
            SELECT b.consumer_group, ?, ?, ?, ?, ?, ?, ?, ?
              FROM once_queue_binding b
             WHERE b.destination = ? AND b.consumer_group = ?
            """)) {
      MariaDbJdbc.bind(
          ps,
          e.id().value(),
          e.destination(),
          e.key(),
          e.type(),
          e.payload(),
          MariaDbJdbc.headers(e.headers()),
          now,
          now,
          e.destination(),
          consumerGroup);
      return ps.executeUpdate();
    }
  }

  /** A locking read of the rows (skipping those other claims hold), then one UPDATE of them. */
  @Override
  public List<Delivery> claim(Connection c, QueueClaim claim) throws SQLException {
    List<Delivery> deliveries = new ArrayList<>();
    List<Long> ids = new ArrayList<>();
    try (PreparedStatement ps =
        c.prepareStatement(
            """
            SELECT id, event_id, destination, event_key, event_type, payload, headers,
                   delivery_count
              FROM once_queue
             WHERE consumer_group = ? AND visible_at <= ?
             ORDER BY id
             LIMIT ?
               FOR UPDATE SKIP LOCKED
            """)) {
      MariaDbJdbc.bind(ps, claim.consumerGroup(), claim.now(), claim.limit());
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          int count = rs.getInt("delivery_count") + 1;
          long id = rs.getLong("id");
          ids.add(id);
          deliveries.add(MessageDecoder.decode(MariaDbJdbc.raw(rs), count, count > 1, id));
        }
      }
    }
    if (!ids.isEmpty()) {
      MariaDbJdbc.update(
          c,
          """
          UPDATE once_queue SET delivery_count = delivery_count + 1, visible_at = ?
           WHERE id IN (%s)
          """
              .formatted(in(ids.size())),
          params(List.of(claim.visibleUntil()), ids));
    }
    return deliveries;
  }

  @Override
  public void ack(Connection c, List<Long> ids) throws SQLException {
    MariaDbJdbc.update(
        c, "DELETE FROM once_queue WHERE id IN (%s)".formatted(in(ids.size())), ids.toArray());
  }

  @Override
  public void nack(Connection c, List<Long> ids, Instant visibleAt) throws SQLException {
    MariaDbJdbc.update(
        c,
        "UPDATE once_queue SET visible_at = ? WHERE id IN (%s)".formatted(in(ids.size())),
        params(List.of(visibleAt), ids));
  }

  @Override
  public void release(Connection c, List<Long> ids, Instant visibleAt) throws SQLException {
    MariaDbJdbc.update(
        c,
        """
        UPDATE once_queue SET visible_at = ?, delivery_count = greatest(delivery_count - 1, 0)
         WHERE id IN (%s)
        """
            .formatted(in(ids.size())),
        params(List.of(visibleAt), ids));
  }

  @Override
  public long depth(Connection c, String consumerGroup) throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement("SELECT count(*) FROM once_queue WHERE consumer_group = ?")) {
      ps.setString(1, consumerGroup);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? rs.getLong(1) : 0;
      }
    }
  }

  @Override
  public int purge(Connection c, String consumerGroup) throws SQLException {
    return MariaDbJdbc.update(c, "DELETE FROM once_queue WHERE consumer_group = ?", consumerGroup);
  }
}
