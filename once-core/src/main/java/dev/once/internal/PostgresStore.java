package dev.once.internal;

import dev.once.Event;
import dev.once.spi.Channel;
import dev.once.spi.OutboxRow;
import dev.once.spi.StoreDialect;
import dev.once.spi.TransactionWaits;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import javax.sql.DataSource;

/** The store part on PostgreSQL: markers, outbox, relay partitions (advisory locks), NOTIFY. */
public class PostgresStore implements StoreDialect {

  /** Advisory lock namespace of the relay's partitions, made distinct per schema. */
  private static final String RELAY_LOCK_SPACE = "hashtext(current_schema() || '.once_outbox')";

  @Override
  public Set<String> insertMarkers(Connection c, String consumerId, List<String> eventIds)
      throws SQLException {
    return Jdbc.strings(
        c,
        """
        INSERT INTO once_inbox (consumer_id, event_id)
        SELECT ?, e FROM unnest(?::text[]) WITH ORDINALITY AS u(e, n) ORDER BY n
        ON CONFLICT DO NOTHING
        RETURNING event_id
        """,
        new HashSet<>(),
        consumerId,
        c.createArrayOf("text", eventIds.toArray(new String[0])));
  }

  @Override
  public void deleteMarker(Connection c, String consumerId, String eventId) throws SQLException {
    Jdbc.update(
        c, "DELETE FROM once_inbox WHERE consumer_id = ? AND event_id = ?", consumerId, eventId);
  }

  @Override
  public boolean insertOutbox(Connection c, Event event, int partition) throws SQLException {
    return Jdbc.update(
            c,
            """
            INSERT INTO once_outbox
                   (event_id, destination, event_key, event_type, payload, headers, key_partition)
            VALUES (?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (event_id) DO NOTHING
            """,
            event.id().value(),
            event.destination(),
            event.key(),
            event.type(),
            event.payload(),
            Jdbc.headers(c, event.headers()),
            partition)
        == 1;
  }

  @Override
  public boolean applyIfNewer(Connection c, String entity, String id, long version)
      throws SQLException {
    return Jdbc.update(
            c,
            """
            INSERT INTO once_version AS v (entity, entity_id, version)
            VALUES (?, ?, ?)
            ON CONFLICT (entity, entity_id) DO UPDATE
               SET version = EXCLUDED.version
             WHERE v.version < EXCLUDED.version
            """,
            entity,
            id,
            version)
        == 1;
  }

  /**
   * Asynchronous commit, and statements planned as on a large table: queue tables are often empty
   * when (auto)vacuum or analyze looks at them and full moments later; with those statistics the
   * planner picks a sequential scan and a sort for every claim, and a backlog then makes each claim
   * slower than the last.
   */
  @Override
  public void beginEngineTransaction(Connection c) throws SQLException {
    beginEngineTransaction(c, TransactionWaits.NONE);
  }

  /** The same statement, with the waits' bounds in it: no round trip of their own. */
  @Override
  public void beginEngineTransaction(Connection c, TransactionWaits waits) throws SQLException {
    Jdbc.execute(
        c,
        """
        SELECT set_config('synchronous_commit', 'off', true),
               set_config('enable_seqscan', 'off', true),
               set_config('enable_bitmapscan', 'off', true),
               set_config('lock_timeout',
                          coalesce(?, current_setting('lock_timeout')), true),
               set_config('idle_in_transaction_session_timeout',
                          coalesce(?, current_setting('idle_in_transaction_session_timeout')), true)
        """,
        millis(waits.lockWait()),
        millis(waits.idleInTransaction()));
  }

  /** {@code lock_timeout} and {@code idle_in_transaction_session_timeout} of the session. */
  @Override
  public TransactionWaits sessionWaits(Connection c) throws SQLException {
    try (PreparedStatement ps =
            c.prepareStatement(
                """
                SELECT (SELECT setting::bigint FROM pg_settings WHERE name = 'lock_timeout'),
                       (SELECT setting::bigint FROM pg_settings
                         WHERE name = 'idle_in_transaction_session_timeout')
                """);
        ResultSet rs = ps.executeQuery()) {
      rs.next();
      return new TransactionWaits(
          java.time.Duration.ofMillis(rs.getLong(1)), java.time.Duration.ofMillis(rs.getLong(2)));
    }
  }

  /** {@code set_config(…, true)} is {@code SET LOCAL}: it ends with the transaction. */
  @Override
  public boolean boundsTransactionWaits() {
    return true;
  }

  @Override
  public void boundTransactionWaits(Connection c, TransactionWaits waits) throws SQLException {
    Jdbc.execute(
        c,
        """
        SELECT set_config('lock_timeout', coalesce(?, current_setting('lock_timeout')), true),
               set_config('idle_in_transaction_session_timeout',
                          coalesce(?, current_setting('idle_in_transaction_session_timeout')), true)
        """,
        millis(waits.lockWait()),
        millis(waits.idleInTransaction()));
  }

  /** A bound in milliseconds as a setting's text; null (keep the session's) for none. */
  private static String millis(java.time.Duration bound) {
    return bound.isZero() ? null : Long.toString(bound.toMillis());
  }

  @Override
  public List<Integer> pendingPartitions(Connection c, Instant now, int limit) throws SQLException {
    return Jdbc.ints(
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

  /** Transaction-scoped advisory locks: they end with the transaction or its connection. */
  @Override
  public List<Integer> lockPartitions(Connection c, List<Integer> partitions) throws SQLException {
    return Jdbc.ints(
        c,
        """
        SELECT p FROM unnest(?::int[]) AS p
         WHERE pg_try_advisory_xact_lock(%s, p)
        """
            .formatted(RELAY_LOCK_SPACE),
        Jdbc.intArray(c, partitions));
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
               AND key_partition = ANY(?::int[])
               AND (next_attempt_at IS NULL OR next_attempt_at <= ?)
             ORDER BY id
             LIMIT ?
            """)) {
      Jdbc.bind(ps, Jdbc.intArray(c, partitions), now, limit);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          rows.add(
              new OutboxRow(
                  rs.getLong("id"),
                  Jdbc.raw(rs),
                  rs.getTimestamp("created_at").toInstant(),
                  rs.getInt("attempts")));
        }
      }
    }
    return rows;
  }

  @Override
  public void markSent(Connection c, List<Long> ids, Instant sentAt) throws SQLException {
    Jdbc.update(
        c,
        "UPDATE once_outbox SET sent_at = ? WHERE id = ANY(?::bigint[])",
        sentAt,
        Jdbc.longArray(c, ids));
  }

  @Override
  public void markPublishFailed(Connection c, long id, String error, Instant nextAttemptAt)
      throws SQLException {
    Jdbc.update(
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

  /** Parked is {@code next_attempt_at = 'infinity'}. */
  @Override
  public void parkOutbox(Connection c, long id, String error) throws SQLException {
    Jdbc.update(
        c,
        """
        UPDATE once_outbox
           SET attempts = attempts + 1, last_error = ?, next_attempt_at = 'infinity'
         WHERE id = ?
        """,
        error,
        id);
  }

  @Override
  public boolean notifies() {
    return true;
  }

  /** The payload is the schema, so that listeners of other schemas can tell (they do not yet). */
  @Override
  public void notify(Connection c, Channel channel) throws SQLException {
    Jdbc.execute(c, "SELECT pg_notify(?, current_schema())", channelName(channel));
  }

  @Override
  public AutoCloseable listen(DataSource dataSource, Channel channel, Runnable onNotify) {
    String name = channelName(channel);
    return new PgListener(dataSource, name, "LISTEN " + name, null, onNotify).start();
  }

  /** The payload is the schema, a space and the sender's token. */
  @Override
  public void notify(Connection c, Channel channel, String sender) throws SQLException {
    Jdbc.execute(
        c, "SELECT pg_notify(?, current_schema() || ' ' || ?)", channelName(channel), sender);
  }

  @Override
  public AutoCloseable listen(
      DataSource dataSource, Channel channel, String ownSender, Runnable onNotify) {
    String name = channelName(channel);
    return new PgListener(dataSource, name, "LISTEN " + name, " " + ownSender, onNotify).start();
  }

  private static String channelName(Channel channel) {
    return "once_" + channel.name().toLowerCase(Locale.ROOT);
  }
}
