package dev.once.internal;

import static dev.once.internal.MariaDbJdbc.in;
import static dev.once.internal.MariaDbJdbc.params;

import dev.once.Event;
import dev.once.spi.OutboxRow;
import dev.once.spi.StoreDialect;
import dev.once.spi.TransactionWaits;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The store part on MariaDB/MySQL. Markers and outbox rows are plain INSERTs whose only tolerated
 * error is a duplicate key (never {@code INSERT IGNORE}, which also turns truncation and other
 * errors into warnings). Relay partitions are rows of {@code once_relay_partition} locked with
 * {@code FOR UPDATE SKIP LOCKED} for one batch transaction. No cross-process wake-ups: relays and
 * receivers of other processes find new rows when they poll.
 */
public class MariaDbStore implements StoreDialect {

  /**
   * One INSERT per marker, in the given order: a marker another transaction holds makes it wait for
   * that transaction; if it commits, the duplicate key reports the marker as not inserted.
   */
  @Override
  public Set<String> insertMarkers(Connection c, String consumerId, List<String> eventIds)
      throws SQLException {
    Set<String> inserted = new LinkedHashSet<>();
    for (String eventId : eventIds) {
      if (MariaDbJdbc.insertUnlessDuplicate(
          c, "INSERT INTO once_inbox (consumer_id, event_id) VALUES (?, ?)", consumerId, eventId)) {
        inserted.add(eventId);
      }
    }
    return inserted;
  }

  @Override
  public void deleteMarker(Connection c, String consumerId, String eventId) throws SQLException {
    MariaDbJdbc.update(
        c, "DELETE FROM once_inbox WHERE consumer_id = ? AND event_id = ?", consumerId, eventId);
  }

  @Override
  public boolean insertOutbox(Connection c, Event event, int partition) throws SQLException {
    return MariaDbJdbc.insertUnlessDuplicate(
        c,
        """
        INSERT INTO once_outbox
               (event_id, destination, event_key, event_type, payload, headers, key_partition)
        VALUES (?, ?, ?, ?, ?, ?, ?)
        """,
        event.id().value(),
        event.destination(),
        event.key(),
        event.type(),
        event.payload(),
        MariaDbJdbc.headers(event.headers()),
        partition);
  }

  /**
   * An UPDATE that only raises the version; if it matched nothing, an INSERT; if that hits a row
   * inserted meanwhile, the UPDATE once more (it now sees the committed row).
   */
  @Override
  public boolean applyIfNewer(Connection c, String entity, String id, long version)
      throws SQLException {
    String raise =
        """
        UPDATE once_version SET version = ?
         WHERE entity = ? AND entity_id = ? AND version < ?
        """;
    if (MariaDbJdbc.update(c, raise, version, entity, id, version) == 1) {
      return true;
    }
    if (MariaDbJdbc.insertUnlessDuplicate(
        c,
        "INSERT INTO once_version (entity, entity_id, version) VALUES (?, ?, ?)",
        entity,
        id,
        version)) {
      return true;
    }
    return MariaDbJdbc.update(c, raise, version, entity, id, version) == 1;
  }

  /**
   * READ COMMITTED: the relay's and the queue's reads see rows other relays and receivers committed
   * after this transaction began (a REPEATABLE READ snapshot would show rows another relay has just
   * sent as pending), and their locking reads take no gap locks that block producers' inserts.
   */
  @Override
  public void beginEngineTransaction(Connection c) throws SQLException {
    MariaDbJdbc.update(c, "SET TRANSACTION ISOLATION LEVEL READ COMMITTED");
  }

  /**
   * {@code innodb_lock_wait_timeout} and {@code idle_transaction_timeout} of the session (MySQL,
   * which has no idle-transaction bound, reports none). Neither can be scoped to a transaction
   * here: {@link #boundsTransactionWaits()} is false, and Once leaves the session as it is.
   */
  @Override
  public TransactionWaits sessionWaits(Connection c) throws SQLException {
    Duration lock;
    try (PreparedStatement ps = c.prepareStatement("SELECT @@session.innodb_lock_wait_timeout");
        ResultSet rs = ps.executeQuery()) {
      rs.next();
      lock = Duration.ofSeconds(rs.getLong(1));
    }
    try (PreparedStatement ps = c.prepareStatement("SELECT @@session.idle_transaction_timeout");
        ResultSet rs = ps.executeQuery()) {
      rs.next();
      return new TransactionWaits(lock, Duration.ofSeconds(rs.getLong(1)));
    } catch (SQLException e) {
      if (e.getErrorCode() == 1193) { // ER_UNKNOWN_SYSTEM_VARIABLE: MySQL
        return new TransactionWaits(lock, Duration.ZERO);
      }
      throw e;
    }
  }

  @Override
  public List<Integer> pendingPartitions(Connection c, Instant now, int limit) throws SQLException {
    return ints(
        c,
        """
        SELECT DISTINCT key_partition FROM (
          SELECT key_partition FROM once_outbox
           WHERE sent_at IS NULL
             AND (next_attempt_at IS NULL OR next_attempt_at <= ?)
           ORDER BY id
           LIMIT ?) oldest
        """,
        now,
        limit);
  }

  @Override
  public List<Integer> lockPartitions(Connection c, List<Integer> partitions) throws SQLException {
    if (partitions.isEmpty()) {
      return List.of();
    }
    return ints(
        c,
        """
        SELECT partition_no FROM once_relay_partition
         WHERE partition_no IN (%s)
           FOR UPDATE SKIP LOCKED
        """
            .formatted(in(partitions.size())),
        partitions.toArray());
  }

  @Override
  public List<OutboxRow> claimOutbox(Connection c, List<Integer> partitions, Instant now, int limit)
      throws SQLException {
    List<OutboxRow> rows = new ArrayList<>();
    try (PreparedStatement ps =
        c.prepareStatement(
            """
            SELECT id, event_id, destination, event_key, event_type, payload, headers, created_at,
                   attempts
              FROM once_outbox
             WHERE sent_at IS NULL
               AND key_partition IN (%s)
               AND (next_attempt_at IS NULL OR next_attempt_at <= ?)
             ORDER BY id
             LIMIT ?
            """
                .formatted(in(partitions.size())))) {
      MariaDbJdbc.bind(ps, params(List.of(), partitions, now, limit));
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          rows.add(
              new OutboxRow(
                  rs.getLong("id"),
                  MariaDbJdbc.raw(rs),
                  MariaDbJdbc.instant(rs, "created_at"),
                  rs.getInt("attempts")));
        }
      }
    }
    return rows;
  }

  @Override
  public void markSent(Connection c, List<Long> ids, Instant sentAt) throws SQLException {
    MariaDbJdbc.update(
        c,
        "UPDATE once_outbox SET sent_at = ? WHERE id IN (%s)".formatted(in(ids.size())),
        params(List.of(sentAt), ids));
  }

  @Override
  public void markPublishFailed(Connection c, long id, String error, Instant nextAttemptAt)
      throws SQLException {
    MariaDbJdbc.update(
        c,
        """
        UPDATE once_outbox
           SET attempts = attempts + 1, last_error = ?, next_attempt_at = ?
         WHERE id = ?
        """,
        error,
        nextAttemptAt,
        id);
  }

  /** Parked is {@code next_attempt_at = '9999-12-31'}. */
  @Override
  public void parkOutbox(Connection c, long id, String error) throws SQLException {
    markPublishFailed(c, id, error, MariaDbJdbc.NEVER);
  }

  private static List<Integer> ints(Connection c, String sql, Object... params)
      throws SQLException {
    List<Integer> out = new ArrayList<>();
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      MariaDbJdbc.bind(ps, params);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          out.add(rs.getInt(1));
        }
      }
    }
    return out;
  }
}
