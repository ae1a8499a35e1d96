package dev.once.internal.postgres;

import dev.once.Event;
import dev.once.jdbc.Channel;
import dev.once.jdbc.JdbcStore;
import dev.once.jdbc.KeyHold;
import dev.once.jdbc.OutboxRow;
import dev.once.jdbc.RelayClaim;
import dev.once.jdbc.RelayPartitions;
import dev.once.jdbc.Sql;
import dev.once.jdbc.TransactionWaits;
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
    this.claimRelayBatch = claimRelayBatch("");
    this.claimRelayBatchInKeyOrder = claimRelayBatch(HOLD);
    this.outboxInsertWithoutHeaders =
        sql.unlessDuplicate(
            """
            INSERT INTO once_outbox
                   (event_id, destination, event_key, event_type, payload, key_partition)
            VALUES (?, ?, ?, ?, ?, ?)
            """,
            "event_id");
    this.outboxInsertNotifying = notifying(outboxInsert());
    this.outboxInsertWithoutHeadersNotifying = notifying(outboxInsertWithoutHeaders);
  }

  /** An event without headers (most events): two parameters fewer, no empty array to bind. */
  @Override
  public String outboxStatement(Event event) {
    return event.headers().isEmpty()
        ? outboxInsertWithoutHeaders.statement()
        : super.outboxStatement(event);
  }

  @Override
  public boolean insertOutbox(PreparedStatement ps, Event e, int partition) throws SQLException {
    return e.headers().isEmpty()
        ? HeaderlessRows.insertOutbox(ps, e, partition)
        : super.insertOutbox(ps, e, partition);
  }

  /** {@link #outboxInsertWithoutHeaders}'s parameters for {@code event} in {@code partition}. */
  private static Object[] headerless(Event event, int partition) {
    return new Object[] {
      event.id().value(), event.destination(), event.key(), event.type(), event.payload(), partition
    };
  }

  /** {@link #insertOutbox}'s INSERT of an event without headers, composed once. */
  private final Sql.UnlessDuplicate outboxInsertWithoutHeaders;

  /**
   * The outbox row and a notification in one round trip: two statements of one string, the
   * notification as {@link PostgresFlavour#notify} sends it (channel, then the sender's token): a
   * producer transaction that carries the outbox's notification ({@code TxImpl}).
   */
  public boolean insertOutboxNotifying(
      Connection c, Event event, int partition, Channel channel, String sender)
      throws SQLException {
    boolean headers = !event.headers().isEmpty();
    Object[] row = headers ? outboxParameters(event, partition) : headerless(event, partition);
    Object[] params = java.util.Arrays.copyOf(row, row.length + 2);
    params[row.length] = PostgresFlavour.channelName(channel);
    params[row.length + 1] = sender;
    try (PreparedStatement ps =
        c.prepareStatement(headers ? outboxInsertNotifying : outboxInsertWithoutHeadersNotifying)) {
      PostgresFlavour.SQL.bind(ps, params);
      ps.execute();
      int written = ps.getUpdateCount();
      ps.getMoreResults(); // the notification's empty row
      return written > 0;
    }
  }

  /** {@link #insertOutboxNotifying}'s statements, composed once: with headers, and without. */
  private final String outboxInsertNotifying;

  private final String outboxInsertWithoutHeadersNotifying;

  private static String notifying(Sql.UnlessDuplicate insert) {
    return insert.statement().strip() + ";\n" + PostgresFlavour.NOTIFY_FROM;
  }

  private final ClaimBinds claimBinds = new ClaimBinds();

  /** {@link #claimRelayBatch}'s three statements, composed once: a relay runs them every batch. */
  private final String claimRelayBatch;

  /** The same with the key-ordered destinations' hold ({@link KeyHold}) in the due and claim. */
  private final String claimRelayBatchInKeyOrder;

  /**
   * An instant of the relay's statements, bound as {@link #micros} (a {@code long}): pgjdbc binds a
   * date-time through a TimestampUtils (with a GregorianCalendar) that it builds for each
   * statement, and the relay prepares its claim and its mark sent anew every batch. Exact: the
   * product is a whole number of microseconds under 2^53 (instants before the year 2255).
   */
  static final String AT = "(timestamptz 'epoch' + ?::bigint * interval '1 microsecond')";

  /** {@link KeyHold}'s condition over the key-ordered destinations, bound as one array. */
  private static final String HOLD = KeyHold.condition("destination = ANY (?::text[])", AT);

  /** {@code instant} in microseconds since the epoch, rounded half up as pgjdbc rounds one. */
  static long micros(Instant instant) {
    return Math.addExact(
        Math.multiplyExact(instant.getEpochSecond(), 1_000_000L), (instant.getNano() + 500) / 1000);
  }

  /**
   * {@code created_at} in microseconds since the epoch (exact: {@code extract} gives a numeric):
   * pgjdbc reads a date-time through a {@code Timestamp} and a parsed copy of it, for every row a
   * relay claims.
   */
  @Override
  protected String createdAtColumn() {
    return "(extract(epoch FROM created_at) * 1000000)::bigint AS created_at_us";
  }

  @Override
  protected Instant createdAt(ResultSet rs) throws SQLException {
    long micros = rs.getLong("created_at_us");
    return Instant.ofEpochSecond(
        Math.floorDiv(micros, 1_000_000L), Math.floorMod(micros, 1_000_000L) * 1000);
  }

  /**
   * The three statements of {@link #claimRelayBatch} with {@code hold} after each due condition.
   */
  private String claimRelayBatch(String hold) {
    return PostgresFlavour.BEGIN_ENGINE.strip()
        + ";\n"
        + dueAndShare(hold)
        + """
            SELECT n.due, s.locked, set_config('once.relay_share', s.locked::text, true)
              FROM (SELECT count(*)::int AS due FROM due) n,
                   (SELECT coalesce(array_agg(p), '{}')::int[] AS locked FROM share) s;
            SELECT %s
              FROM once_outbox
             WHERE sent_at IS NULL
               AND cardinality(current_setting('once.relay_share')::int[]) > 0
               AND key_partition = ANY ((SELECT current_setting('once.relay_share')::int[])::int[])
               AND (next_attempt_at IS NULL OR next_attempt_at <= %s)%s
             ORDER BY id
             LIMIT ?
            """
            .formatted(outboxRowColumns(), AT, hold);
  }

  /**
   * A relay batch's end in one round trip: the confirmed rows marked sent and the commit, two
   * statements of one string (pgjdbc sends them with one {@code Sync}; an error in the first skips
   * the second, and the batch rolls back as it would). The server answers that no transaction is
   * open, which pgjdbc reads: the {@code commit()} after it sends nothing.
   */
  private static final String MARK_SENT_AND_COMMIT =
      """
      UPDATE once_outbox SET sent_at = %s WHERE id = ANY (?::bigint[]);
      COMMIT
      """
          .formatted(AT);

  @Override
  public void markSentAndCommit(Connection c, List<Long> ids, Instant sentAt) throws SQLException {
    if (!ids.isEmpty()) {
      try (PreparedStatement ps = c.prepareStatement(MARK_SENT_AND_COMMIT)) {
        ps.setLong(1, micros(sentAt));
        ps.setObject(2, ids.toArray(new Long[0]));
        ps.execute();
      }
    }
    c.commit();
  }

  private static final String INSERT_MARKERS =
      """
      INSERT INTO once_inbox (consumer_id, event_id)
      SELECT ?, e FROM unnest(?::text[]) WITH ORDINALITY AS u(e, n) ORDER BY n
      ON CONFLICT DO NOTHING
      RETURNING event_id
      """;

  private static final String BOUND_WAITS_AND_INSERT_MARKERS =
      PostgresFlavour.BOUND_WAITS.strip() + ";\n" + INSERT_MARKERS;

  /** The bounds (unless none) and the markers in one round trip: two statements of one string. */
  @Override
  public Set<String> insertMarkers(
      Connection c, TransactionWaits waits, String consumerId, List<String> eventIds)
      throws SQLException {
    if (waits.isNone()) {
      return PostgresFlavour.SQL.strings(
          c, INSERT_MARKERS, new HashSet<>(), consumerId, eventIds.toArray(new String[0]));
    }
    try (PreparedStatement ps = c.prepareStatement(BOUND_WAITS_AND_INSERT_MARKERS)) {
      PostgresFlavour.SQL.bind(
          ps,
          PostgresFlavour.millis(waits.lockWait()),
          PostgresFlavour.millis(waits.idleInTransaction()),
          consumerId,
          eventIds.toArray(new String[0]));
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
   * The due partitions (the distinct partitions of the oldest {@code limit} due rows) and the locks
   * on a share of them, as common table expressions {@code due} and {@code share}. The due
   * partitions are tried in a random order until this relay holds its share: one held by another
   * relay is passed over, not counted. {@code OFFSET 0} keeps the lock call above the shuffle
   * (without it PostgreSQL pushes the condition down and locks every due partition), where the
   * limit stops the tries: each is tried at most once and none is locked beyond the share.
   * Parameters: now, limit, relays, relays.
   */
  private static String dueAndShare(String hold) {
    return """
        WITH due AS MATERIALIZED (
          SELECT DISTINCT key_partition AS p FROM (
            SELECT key_partition FROM once_outbox
             WHERE sent_at IS NULL
               AND (next_attempt_at IS NULL OR next_attempt_at <= %s)%s
             ORDER BY id
             LIMIT ?) oldest),
        share AS MATERIALIZED (
          SELECT p FROM (SELECT p FROM due ORDER BY random() OFFSET 0) shuffled
           WHERE pg_try_advisory_xact_lock(%s, p)
           LIMIT (SELECT (count(*) + ?::int - 1) / ?::int FROM due))
        """
        .formatted(AT, hold, PostgresFlavour.RELAY_LOCK_SPACE);
  }

  /**
   * The engine's settings, the due partitions and the locks on a share of them in one round trip:
   * two statements of one string. The settings come first, in a statement of their own, so that the
   * second is planned with them (a query is planned before it runs).
   */
  @Override
  public RelayPartitions beginRelayBatch(
      Connection c,
      TransactionWaits waits,
      Instant now,
      int limit,
      int relays,
      Set<String> keyOrdered)
      throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement(
            PostgresFlavour.BEGIN_ENGINE.strip()
                + ";\n"
                + dueAndShare(keyOrdered.isEmpty() ? "" : HOLD)
                + """
                SELECT n.due, share.p
                  FROM (SELECT count(*)::int AS due FROM due) n LEFT JOIN share ON true
                """)) {
      PostgresFlavour.SQL.bind(ps, beginParameters(waits, now, limit, relays, keyOrdered));
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

  /**
   * {@link #beginRelayBatch} and the claim in one round trip: three statements of one string. The
   * second keeps the partitions it locked in a setting of the transaction, which the third reads.
   * The third takes its snapshot after the locks are held, as a claim of its own would: one
   * statement with the claim in it reads in the snapshot it took before its locks, where the rows
   * the partition's previous holder published and committed in between are still unsent. With no
   * partition locked, the third statement's one-time filter stops it before it reads a row; the
   * setting is read once, in a sub-select (an {@code ANY} of the setting itself casts its text for
   * every row it reads: 0.7 against 0.25 ms for 1 600 rows).
   */
  @Override
  public RelayClaim claimRelayBatch(
      Connection c,
      TransactionWaits waits,
      Instant now,
      int limit,
      int relays,
      Set<String> keyOrdered)
      throws SQLException {
    boolean ordered = !keyOrdered.isEmpty();
    try (PreparedStatement ps =
        c.prepareStatement(ordered ? claimRelayBatchInKeyOrder : claimRelayBatch)) {
      claimBinds.bind(
          ps, waits, micros(now), limit, relays, ordered ? keyOrdered(keyOrdered) : null);
      ps.execute();
      RelayPartitions partitions;
      try (ResultSet rs = nextResult(ps, "the due and locked partitions")) {
        rs.next();
        int due = rs.getInt(1);
        List<Integer> locked = List.of((Integer[]) rs.getArray(2).getArray());
        partitions = due == 0 ? RelayPartitions.NONE : new RelayPartitions(due, locked);
      }
      List<OutboxRow> rows = new ArrayList<>();
      try (ResultSet rs = nextResult(ps, "the claimed rows")) {
        while (rs.next()) {
          rows.add(outboxRow(rs));
        }
      }
      return partitions.due() == 0 && rows.isEmpty()
          ? RelayClaim.NONE
          : new RelayClaim(partitions, rows);
    }
  }

  /**
   * The parameters of the settings and of {@link #dueAndShare} (with the hold's when {@code
   * keyOrdered} is not empty).
   */
  private static Object[] beginParameters(
      TransactionWaits waits, Instant now, int limit, int relays, Set<String> keyOrdered) {
    List<Object> all = new ArrayList<>();
    all.add(PostgresFlavour.millis(waits.lockWait()));
    all.add(PostgresFlavour.millis(waits.idleInTransaction()));
    all.add(micros(now));
    if (!keyOrdered.isEmpty()) {
      all.add(keyOrdered(keyOrdered));
      all.add(micros(now));
    }
    all.addAll(List.of(limit, relays, relays));
    return all.toArray();
  }

  /** The key-ordered destinations as the array {@link #HOLD} binds. */
  private static String[] keyOrdered(Set<String> keyOrdered) {
    return keyOrdered.toArray(new String[0]);
  }

  /** The next statement's rows of {@code ps}, run already; {@code what} names them in the error. */
  private static ResultSet nextResult(PreparedStatement ps, String what) throws SQLException {
    if (!ps.getMoreResults()) {
      throw new SQLException("expected " + what + " from the next statement");
    }
    return ps.getResultSet();
  }

  /** Runs the two statements of {@code ps} (one round trip) and returns the second's rows. */
  private static ResultSet secondResult(PreparedStatement ps) throws SQLException {
    ps.execute();
    return nextResult(ps, "the rows of a second statement");
  }

  @Override
  public boolean applyIfNewer(Connection c, String entity, String id, long version)
      throws SQLException {
    return PostgresFlavour.SQL.update(
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
