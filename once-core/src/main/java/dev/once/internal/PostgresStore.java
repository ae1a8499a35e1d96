package dev.once.internal;

import dev.once.jdbc.JdbcStore;
import dev.once.spi.RelayPartitions;
import dev.once.spi.TransactionWaits;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The store part on PostgreSQL: the standard one, with a batch of markers in one statement and
 * versions in one upsert; a relay batch's first round trip and a consumer batch's first round trip
 * each carry the transaction's settings with them (pgjdbc sends the statements of one string
 * together and reads their results after one wait).
 */
public class PostgresStore extends JdbcStore {

  public PostgresStore() {
    this(new PostgresFlavour());
  }

  public PostgresStore(PostgresFlavour flavour) {
    super(flavour);
  }

  private static final String INSERT_MARKERS =
      """
      INSERT INTO once_inbox (consumer_id, event_id)
      SELECT ?, e FROM unnest(?::text[]) WITH ORDINALITY AS u(e, n) ORDER BY n
      ON CONFLICT DO NOTHING
      RETURNING event_id
      """;

  @Override
  public Set<String> insertMarkers(Connection c, String consumerId, List<String> eventIds)
      throws SQLException {
    return Jdbc.strings(
        c,
        INSERT_MARKERS,
        new HashSet<>(),
        consumerId,
        c.createArrayOf("text", eventIds.toArray(new String[0])));
  }

  /** The bounds and the markers in one round trip: two statements of one string. */
  @Override
  public Set<String> insertMarkers(
      Connection c, TransactionWaits waits, String consumerId, List<String> eventIds)
      throws SQLException {
    if (waits.isNone()) {
      return insertMarkers(c, consumerId, eventIds);
    }
    try (PreparedStatement ps =
        c.prepareStatement(PostgresFlavour.BOUND_WAITS.strip() + ";\n" + INSERT_MARKERS)) {
      Jdbc.bind(
          ps,
          PostgresFlavour.millis(waits.lockWait()),
          PostgresFlavour.millis(waits.idleInTransaction()),
          consumerId,
          c.createArrayOf("text", eventIds.toArray(new String[0])));
      Set<String> inserted = new HashSet<>();
      try (ResultSet rs = secondResult(ps)) {
        while (rs.next()) {
          inserted.add(rs.getString(1));
        }
      }
      return inserted;
    }
  }

  /**
   * The engine's settings, the due partitions and the locks on a share of them in one round trip:
   * two statements of one string. The settings come first, in a statement of their own, so that the
   * second is planned with them (a query is planned before it runs). The due partitions are tried
   * in a random order until this relay holds its share: one held by another relay is passed over,
   * not counted. {@code OFFSET 0} keeps the lock call above the shuffle (without it PostgreSQL
   * pushes the condition down and locks every due partition), where the limit stops the tries: each
   * is tried at most once and none is locked beyond the share.
   */
  @Override
  public RelayPartitions beginRelayBatch(
      Connection c, TransactionWaits waits, Instant now, int limit, int relays)
      throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement(
            PostgresFlavour.BEGIN_ENGINE.strip()
                + ";\n"
                + """
                WITH due AS MATERIALIZED (
                  SELECT DISTINCT key_partition AS p FROM (
                    SELECT key_partition FROM once_outbox
                     WHERE sent_at IS NULL
                       AND (next_attempt_at IS NULL OR next_attempt_at <= ?)
                     ORDER BY id
                     LIMIT ?) oldest),
                share AS MATERIALIZED (
                  SELECT p FROM (SELECT p FROM due ORDER BY random() OFFSET 0) shuffled
                   WHERE pg_try_advisory_xact_lock(%s, p)
                   LIMIT (SELECT (count(*) + ?::int - 1) / ?::int FROM due))
                SELECT n.due, share.p
                  FROM (SELECT count(*)::int AS due FROM due) n LEFT JOIN share ON true
                """
                    .formatted(PostgresFlavour.RELAY_LOCK_SPACE))) {
      Jdbc.bind(
          ps,
          PostgresFlavour.millis(waits.lockWait()),
          PostgresFlavour.millis(waits.idleInTransaction()),
          now,
          limit,
          relays,
          relays);
      int due = 0;
      List<Integer> locked = new ArrayList<>();
      try (ResultSet rs = secondResult(ps)) {
        while (rs.next()) {
          due = rs.getInt(1);
          int partition = rs.getInt(2);
          if (!rs.wasNull()) {
            locked.add(partition);
          }
        }
      }
      return due == 0 ? RelayPartitions.NONE : new RelayPartitions(due, locked);
    }
  }

  /** Runs the two statements of {@code ps} (one round trip) and returns the second's rows. */
  private static ResultSet secondResult(PreparedStatement ps) throws SQLException {
    ps.execute();
    if (!ps.getMoreResults()) {
      throw new SQLException("expected the rows of a second statement");
    }
    return ps.getResultSet();
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
}
