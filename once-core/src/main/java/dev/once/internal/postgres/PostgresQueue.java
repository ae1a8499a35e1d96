package dev.once.internal.postgres;

import dev.once.Event;
import dev.once.jdbc.JdbcQueue;
import dev.once.jdbc.JdbcRows;
import dev.once.jdbc.QueueClaim;
import dev.once.jdbc.SqlFlavour;
import dev.once.jdbc.SqlList;
import dev.once.jdbc.TransactionWaits;
import dev.once.spi.Delivery;
import dev.once.spi.MessageDecoder;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
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
         WHERE consumer_group = ? AND NOT parked AND visible_at <= ?
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

  /**
   * {@link #CLAIM} for an ordered group: a row with a key only when no earlier row of its (group,
   * destination, key) enqueued in key order is in the queue — in flight, in backoff or waiting —
   * and its key is not parked (rows enqueued before the group was ordered are not held back). Each
   * of the two checks is one probe of an index ({@code once_queue_key}, the parked keys' primary
   * key), the parked key's first. The rows waiting behind a parked key are marked {@code parked}
   * and are not in the index the claim walks ({@code once_queue_ready}, unparked rows only): with
   * them in it, 1 000 rows behind a parked key cost every claim a walk over those 1 000 rows
   * (ParkedKeyClaimTest). A row of a parked key enqueued while its key was being parked is not
   * marked; the parked-key check turns it away. Public for the plan test.
   */
  public static final String CLAIM_IN_KEY_ORDER =
      """
      WITH c AS MATERIALIZED (
        SELECT q.id FROM once_queue q
         WHERE q.consumer_group = ? AND NOT q.parked AND q.visible_at <= ?
           AND (q.event_key IS NULL
                OR NOT EXISTS (SELECT 1 FROM once_parked_key p
                                WHERE p.consumer_group = q.consumer_group
                                  AND p.destination = q.destination
                                  AND p.event_key = q.event_key)
                   AND NOT EXISTS (SELECT 1 FROM once_queue e
                                    WHERE e.consumer_group = q.consumer_group
                                      AND e.destination = q.destination
                                      AND e.in_key_order AND e.event_key IS NOT NULL
                                      AND e.event_key = q.event_key
                                      AND e.id < q.id))
         ORDER BY q.id
         LIMIT ?
         FOR UPDATE OF q SKIP LOCKED)
      UPDATE once_queue q
         SET delivery_count = q.delivery_count + 1, visible_at = ?
        FROM c
       WHERE q.id = c.id
      RETURNING q.id, q.event_id, q.destination, q.event_key, q.event_type, q.payload,
                q.headers, q.trace, q.delivery_count
      """;

  /**
   * (ids, now): deletes the acknowledged rows, parks the key of each one the group holds an open
   * dead letter of, and marks the rows waiting behind a key it parks {@code parked} (out of the
   * claim's index), in one statement: the key is held back by its head row until this commits, and
   * by the parked key after.
   */
  static final String ACK_IN_KEY_ORDER =
      """
      WITH d AS (
        DELETE FROM once_queue WHERE id = ANY(?::bigint[])
        RETURNING id, consumer_group, destination, event_key, event_id),
      p AS (
        INSERT INTO once_parked_key
               (consumer_group, destination, event_key, event_id, head_id, parked_at)
        SELECT d.consumer_group, d.destination, d.event_key, d.event_id, d.id, ?
          FROM d
          JOIN once_dead_letter l
            ON l.consumer_id = d.consumer_group AND l.event_id = d.event_id AND l.status = 'dead'
         WHERE d.event_key IS NOT NULL
        ON CONFLICT DO NOTHING
        RETURNING consumer_group, destination, event_key)
      UPDATE once_queue q SET parked = true
        FROM p
       WHERE q.consumer_group = p.consumer_group AND q.destination = p.destination
         AND q.in_key_order AND q.event_key IS NOT NULL AND q.event_key = p.event_key
         AND NOT q.parked AND q.id NOT IN (SELECT id FROM d)
      """;

  /**
   * On enqueue, a row of an ordered group whose key is parked is marked {@code parked} at once. The
   * parked key is read {@code FOR SHARE}: a release that locks it first (and clears the marks
   * after) makes this wait and find it gone; one that comes after waits for this row's commit, and
   * its clearing then sees the row. So no row stays marked after its key was released.
   */
  private static final String PARKED_ON_ENQUEUE =
      """
      b.in_key_order AND EXISTS (SELECT 1 FROM once_parked_key p
                                  WHERE p.consumer_group = b.consumer_group
                                    AND p.destination = b.destination
                                    AND p.event_key = ?::text
                                    FOR SHARE)""";

  public PostgresQueue(PostgresFlavour flavour) {
    super(flavour, PARKED_ON_ENQUEUE);
  }

  /** The standard copy's parameters with the key once more, for {@link #PARKED_ON_ENQUEUE}. */
  @Override
  protected Object[] copy(Connection c, Event e, Instant now) throws SQLException {
    Object[] standard = super.copy(c, e, now);
    Object[] copy = Arrays.copyOf(standard, standard.length + 1);
    copy[copy.length - 1] = standard[standard.length - 1]; // the destination, last
    copy[copy.length - 2] = e.key();
    return copy;
  }

  @Override
  public int enqueueUnordered(Connection c, Event e, Instant now) throws SQLException {
    return e.headers().isEmpty() // most events: see HeaderlessRows
        ? HeaderlessRows.enqueueUnordered(c, e, now)
        : super.enqueueUnordered(c, e, now);
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
    return claim(c, claim, CLAIM);
  }

  /** {@link #CLAIM} begun and committed: {@link #claimAndCommit}'s three statements in one. */
  private static final String BEGIN_CLAIM_COMMIT = beginAndCommit(CLAIM);

  /** {@link #CLAIM_IN_KEY_ORDER} begun and committed, as {@link #BEGIN_CLAIM_COMMIT}. */
  private static final String BEGIN_CLAIM_IN_KEY_ORDER_COMMIT = beginAndCommit(CLAIM_IN_KEY_ORDER);

  private static String beginAndCommit(String claim) {
    return PostgresFlavour.BEGIN_ENGINE.strip() + ";\n" + claim.strip() + ";\nCOMMIT";
  }

  /**
   * The engine's settings, the claim and the commit in one round trip: three statements of one
   * string, which pgjdbc sends with one {@code Sync} (an error skips what follows it, and the
   * caller rolls back). The claim's rows are read before the commit's answer; the server then says
   * no transaction is open, so the {@code commit()} after it sends nothing. Before: three round
   * trips per claim, a third of a consumer's statements under load. It sends {@link #CLAIM} or
   * {@link #CLAIM_IN_KEY_ORDER} itself: a subclass that changes {@link #claim} or {@link
   * #claimInKeyOrder} overrides this too.
   */
  @Override
  public List<Delivery> claimAndCommit(
      Connection c,
      SqlFlavour flavour,
      TransactionWaits waits,
      QueueClaim claim,
      boolean inKeyOrder)
      throws SQLException {
    List<Delivery> deliveries = new ArrayList<>();
    try (PreparedStatement ps =
        c.prepareStatement(inKeyOrder ? BEGIN_CLAIM_IN_KEY_ORDER_COMMIT : BEGIN_CLAIM_COMMIT)) {
      sql.bind(
          ps,
          PostgresFlavour.millis(waits.lockWait()),
          PostgresFlavour.millis(waits.idleInTransaction()));
      bindClaim(ps, 3, claim);
      ps.execute(); // the settings' row
      ps.getMoreResults();
      try (ResultSet rs = ps.getResultSet()) {
        read(rs, deliveries);
      }
    }
    c.commit();
    return deliveries;
  }

  /**
   * (ids): no sequential scan (not begun with {@link PostgresFlavour#BEGIN_ENGINE}, a consumer's
   * delete planned on a near-empty once_queue kept one as it grew: 7 800 a run), then the delete.
   */
  private static final String ACK =
      "SELECT set_config('enable_seqscan', 'off', true);\n"
          + "DELETE FROM once_queue WHERE id = ANY(?::bigint[])";

  /** (ids, then {@link #CLAIM}'s): {@link #ACK}, no bitmap scan, the next rows claimed. */
  private static final String ACK_AND_CLAIM =
      ACK.replace("SELECT ", "SELECT set_config('enable_bitmapscan', 'off', true), ")
          + (";\n" + CLAIM);

  /** {@link #ACK} and its transaction's commit: {@link #ackClaimAndCommit} without a claim. */
  private static final String ACK_COMMIT = ACK + ";\nCOMMIT";

  /** {@link #ACK_AND_CLAIM} and its transaction's commit. */
  private static final String ACK_AND_CLAIM_COMMIT = ACK_AND_CLAIM + ";\nCOMMIT";

  @Override
  public List<Delivery> ackAndClaim(Connection c, List<Long> ids, QueueClaim claim)
      throws SQLException {
    return ackAndClaim(c, ids, claim, false);
  }

  /**
   * The acknowledgement (and claim) with {@code COMMIT} after it in the same string, one {@code
   * Sync} as {@link #claimAndCommit}: the claim's rows are read before the commit's answer, and the
   * caller's {@code commit()} after it sends nothing. A consumer's batch then costs the markers,
   * its handlers and this: one round trip less than with the commit on its own.
   */
  @Override
  public List<Delivery> ackClaimAndCommit(Connection c, List<Long> ids, QueueClaim claim)
      throws SQLException {
    return ackAndClaim(c, ids, claim, true);
  }

  @Override
  public boolean commitsWithAck() {
    return true;
  }

  private List<Delivery> ackAndClaim(Connection c, List<Long> ids, QueueClaim claim, boolean commit)
      throws SQLException {
    if (claim == null) {
      sql.execute(c, commit ? ACK_COMMIT : ACK, SqlList.of("bigint", ids));
      return null;
    }
    List<Delivery> deliveries = new ArrayList<>();
    try (PreparedStatement ps = c.prepareStatement(commit ? ACK_AND_CLAIM_COMMIT : ACK_AND_CLAIM)) {
      sql.bind(ps, SqlList.of("bigint", ids));
      bindClaim(ps, 2, claim);
      ps.execute(); // the settings' row
      ps.getMoreResults(); // the delete's count
      ps.getMoreResults();
      try (ResultSet rs = ps.getResultSet()) {
        read(rs, deliveries);
      }
    }
    return deliveries;
  }

  @Override
  public boolean ordersByKey() {
    return true;
  }

  /** The head's place from {@code once_queue.id}'s sequence: before all diverted after it. */
  @Override
  public void parkBrokerHead(Connection c, String consumerId, Event e, Instant now)
      throws SQLException {
    sql.update(
        c,
        """
        INSERT INTO once_parked_key
               (consumer_group, destination, event_key, event_id, head_id, parked_at)
        SELECT ?, ?, ?, ?, nextval(pg_get_serial_sequence('once_queue', 'id')), ?
         WHERE NOT EXISTS (SELECT 1 FROM once_parked_key p
                            WHERE p.consumer_group = ? AND p.destination = ?
                              AND p.event_key = ?)
        """,
        consumerId,
        e.destination(),
        e.key(),
        e.id().value(),
        now,
        consumerId,
        e.destination(),
        e.key());
  }

  /** The lane's rows of a batch in one statement ({@link LaneRows}). */
  @Override
  public int[] enqueueInLane(Connection c, List<Event> events, String consumerId, Instant now)
      throws SQLException {
    return LaneRows.enqueue(sql, c, events, consumerId, now);
  }

  @Override
  public List<Delivery> claimInKeyOrder(Connection c, QueueClaim claim) throws SQLException {
    return claim(c, claim, CLAIM_IN_KEY_ORDER);
  }

  @Override
  public void ackInKeyOrder(Connection c, List<Long> ids, Instant now) throws SQLException {
    sql.update(c, ACK_IN_KEY_ORDER, SqlList.of("bigint", ids), now);
  }

  private List<Delivery> claim(Connection c, QueueClaim claim, String statement)
      throws SQLException {
    List<Delivery> deliveries = new ArrayList<>();
    try (PreparedStatement ps = c.prepareStatement(statement)) {
      bindClaim(ps, 1, claim);
      try (ResultSet rs = ps.executeQuery()) {
        read(rs, deliveries);
      }
    }
    return deliveries;
  }

  /**
   * Binds a claim's four parameters from {@code first} on, its instants as text that the server
   * types from their columns ({@link TimestamptzText#bind}): a receiver claims often, mostly
   * finding one row or none, and an instant bound as a date-time cost each claim a TimestampUtils
   * and a GregorianCalendar, a tenth of a consumer thread's allocations.
   */
  private static void bindClaim(PreparedStatement ps, int first, QueueClaim claim)
      throws SQLException {
    ps.setString(first, claim.consumerId());
    TimestamptzText.bind(ps, first + 1, claim.now());
    ps.setInt(first + 2, claim.limit());
    TimestamptzText.bind(ps, first + 3, claim.visibleUntil());
  }

  /** The claimed rows of {@code rs}, each a delivery, into {@code deliveries}. */
  private void read(ResultSet rs, List<Delivery> deliveries) throws SQLException {
    while (rs.next()) {
      int count = rs.getInt("delivery_count");
      // a row that does not decode is handed out as malformed, to be dead-lettered alone
      deliveries.add(
          MessageDecoder.decode(JdbcRows.raw(flavour, rs), count, count > 1, rs.getLong("id")));
    }
  }
}
