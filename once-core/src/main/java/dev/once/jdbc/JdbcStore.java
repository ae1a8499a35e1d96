package dev.once.jdbc;

import dev.once.Event;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The store part in standard SQL: markers, the outbox, versions and relay batches (over the
 * flavour's locks).
 */
public class JdbcStore implements StoreDialect {
  protected final SqlFlavour flavour;
  protected final Sql sql;

  /** Composed once: a producer transaction runs it for every event it publishes. */
  private final Sql.UnlessDuplicate insertOutbox;

  public JdbcStore(SqlFlavour flavour) {
    this.flavour = flavour;
    this.sql = new Sql(flavour);
    this.insertOutbox =
        sql.unlessDuplicate(
            """
            INSERT INTO once_outbox
                   (event_id, destination, event_key, event_type, payload, %s, key_partition)
            VALUES (?, ?, ?, ?, ?, %s, ?)
            """
                .formatted(flavour.headerColumns(), flavour.headerParameters()),
            "event_id");
  }

  /**
   * The flavour's bound on the transaction's waits (where it has one and {@code waits} is not
   * none), then one INSERT per marker, in the given order: a marker another transaction holds makes
   * it wait for that transaction; if it commits, the duplicate reports the marker as not inserted.
   */
  @Override
  public Set<String> insertMarkers(
      Connection c, TransactionWaits waits, String consumerId, List<String> eventIds)
      throws SQLException {
    if (!waits.isNone() && flavour.boundsTransactionWaits()) {
      flavour.boundTransactionWaits(c, waits);
    }
    Set<String> inserted = new LinkedHashSet<>();
    for (String eventId : eventIds) {
      if (sql.insertUnlessDuplicate(
          c,
          "INSERT INTO once_inbox (consumer_id, event_id) VALUES (?, ?)",
          "consumer_id, event_id",
          consumerId,
          eventId)) {
        inserted.add(eventId);
      }
    }
    return inserted;
  }

  @Override
  public void deleteMarker(Connection c, String consumerId, String eventId) throws SQLException {
    sql.update(
        c, "DELETE FROM once_inbox WHERE consumer_id = ? AND event_id = ?", consumerId, eventId);
  }

  @Override
  public boolean insertOutbox(Connection c, Event event, int partition) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(outboxStatement(event))) {
      return insertOutbox(ps, event, partition);
    }
  }

  @Override
  public String outboxStatement(Event event) {
    return insertOutbox.statement();
  }

  @Override
  public boolean insertOutbox(PreparedStatement ps, Event event, int partition)
      throws SQLException {
    return sql.insertUnlessDuplicate(ps, insertOutbox, outboxParameters(event, partition));
  }

  /** The outbox INSERT (with the flavour's conflict clause) that {@link #insertOutbox} runs. */
  protected final Sql.UnlessDuplicate outboxInsert() {
    return insertOutbox;
  }

  /** The parameters of {@link #outboxInsert()} for {@code event} in {@code partition}. */
  protected static Object[] outboxParameters(Event event, int partition) {
    return new Object[] {
      event.id().value(),
      event.destination(),
      event.key(),
      event.type(),
      event.payload(),
      SqlHeaders.of(event.headers()),
      partition
    };
  }

  /**
   * An UPDATE that only raises the version; if it matched nothing, an INSERT; if that meets a row
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
    if (sql.update(c, raise, version, entity, id, version) == 1) {
      return true;
    }
    if (sql.insertUnlessDuplicate(
        c,
        "INSERT INTO once_version (entity, entity_id, version) VALUES (?, ?, ?)",
        "entity, entity_id",
        entity,
        id,
        version)) {
      return true;
    }
    return sql.update(c, raise, version, entity, id, version) == 1;
  }

  @Override
  public List<Integer> pendingPartitions(
      Connection c, Instant now, int limit, Set<String> keyOrdered) throws SQLException {
    KeyHold hold = KeyHold.of(sql, keyOrdered, now);
    return sql.ints(
        c,
        """
        SELECT DISTINCT key_partition FROM (
          SELECT key_partition FROM once_outbox
           WHERE sent_at IS NULL
             AND (next_attempt_at IS NULL OR next_attempt_at <= ?)%s
           ORDER BY id
           LIMIT ?) oldest
        """
            .formatted(hold.condition()),
        hold.parameters(new Object[] {now}, limit));
  }

  /**
   * The flavour's {@link SqlFlavour#lockPartitions}: the one place {@link #beginRelayBatch} takes
   * its locks (a test may override it to break them).
   */
  public List<Integer> lockPartitions(Connection c, List<Integer> partitions) throws SQLException {
    return flavour.lockPartitions(c, partitions);
  }

  @Override
  public RelayPartitions beginRelayBatch(
      Connection c,
      TransactionWaits waits,
      Instant now,
      int limit,
      int relays,
      Set<String> keyOrdered)
      throws SQLException {
    flavour.beginEngineTransaction(c, waits);
    List<Integer> due = new ArrayList<>(pendingPartitions(c, now, limit, keyOrdered));
    if (due.isEmpty()) {
      return RelayPartitions.NONE;
    }
    Collections.shuffle(due);
    int share = (due.size() + relays - 1) / relays;
    List<Integer> locked = new ArrayList<>(share);
    int tried = 0;
    while (locked.size() < share && tried < due.size()) {
      int next = Math.min(due.size(), tried + share - locked.size());
      locked.addAll(lockPartitions(c, due.subList(tried, next)));
      tried = next;
    }
    return new RelayPartitions(due.size(), locked);
  }

  @Override
  public RelayClaim claimRelayBatch(
      Connection c,
      TransactionWaits waits,
      Instant now,
      int limit,
      int relays,
      Set<String> keyOrdered)
      throws SQLException {
    RelayPartitions partitions = beginRelayBatch(c, waits, now, limit, relays, keyOrdered);
    if (partitions.locked().isEmpty()) {
      return new RelayClaim(partitions, List.of());
    }
    return new RelayClaim(partitions, claimOutbox(c, partitions.locked(), now, limit, keyOrdered));
  }

  @Override
  public List<OutboxRow> claimOutbox(
      Connection c, List<Integer> partitions, Instant now, int limit, Set<String> keyOrdered)
      throws SQLException {
    SqlList list = SqlList.of("integer", partitions);
    KeyHold hold = KeyHold.of(sql, keyOrdered, now);
    return sql.list(
        c,
        """
        SELECT %s
          FROM once_outbox
         WHERE sent_at IS NULL
           AND %s
           AND (next_attempt_at IS NULL OR next_attempt_at <= ?)%s
         ORDER BY id
         LIMIT ?
        """
            .formatted(outboxRowColumns(), sql.in("key_partition", list), hold.condition()),
        this::outboxRow,
        hold.parameters(new Object[] {list, now}, limit));
  }

  @Override
  public void markKeyOrdered(Connection c, String destination, String consumerGroup, Instant now)
      throws SQLException {
    sql.insertUnlessDuplicate(
        c,
        """
        INSERT INTO once_ordered_destination (destination, consumer_group, marked_at)
        VALUES (?, ?, ?)
        """,
        "destination, consumer_group",
        destination,
        consumerGroup,
        now);
  }

  @Override
  public Set<String> keyOrderedDestinations(Connection c) throws SQLException {
    return sql.strings(
        c, "SELECT DISTINCT destination FROM once_ordered_destination", new HashSet<>());
  }

  /** The columns {@link #outboxRow} reads. */
  protected String outboxRowColumns() {
    return "id, event_id, destination, event_key, event_type, payload, "
        + flavour.headerColumnsRead()
        + ", "
        + createdAtColumn()
        + ", attempts";
  }

  /** How {@link #outboxRowColumns()} selects {@code created_at}, which {@link #createdAt} reads. */
  protected String createdAtColumn() {
    return "created_at";
  }

  /** A claimed row's {@code created_at}, as {@link #createdAtColumn()} selects it. */
  protected Instant createdAt(ResultSet rs) throws SQLException {
    return flavour.readInstant(rs, "created_at");
  }

  /** A claimed row, from a result of {@link #outboxRowColumns()}. */
  protected OutboxRow outboxRow(ResultSet rs) throws SQLException {
    return new OutboxRow(
        rs.getLong("id"), JdbcRows.raw(flavour, rs), createdAt(rs), rs.getInt("attempts"));
  }

  @Override
  public void markSent(Connection c, List<Long> ids, Instant sentAt) throws SQLException {
    SqlList list = SqlList.of("bigint", ids);
    sql.update(c, "UPDATE once_outbox SET sent_at = ? WHERE " + sql.in("id", list), sentAt, list);
  }

  @Override
  public void markSentAndCommit(Connection c, List<Long> ids, Instant sentAt) throws SQLException {
    if (!ids.isEmpty()) {
      markSent(c, ids, sentAt);
    }
    c.commit();
  }

  @Override
  public void markPublishFailed(Connection c, long id, String error, Instant nextAttemptAt)
      throws SQLException {
    sql.update(
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

  @Override
  public void deferPublish(Connection c, long id, String error, Instant nextAttemptAt)
      throws SQLException {
    sql.update(
        c,
        """
        UPDATE once_outbox
           SET last_error = ?, next_attempt_at = ?
         WHERE id = ?
        """,
        error,
        nextAttemptAt,
        id);
  }

  /** Parked is {@code next_attempt_at} at the flavour's {@link SqlFlavour#never()}. */
  @Override
  public void parkOutbox(Connection c, long id, String error) throws SQLException {
    sql.update(
        c,
        """
        UPDATE once_outbox
           SET attempts = attempts + 1, last_error = ?, next_attempt_at = %s
         WHERE id = ?
        """
            .formatted(flavour.never()),
        error,
        id);
  }
}
