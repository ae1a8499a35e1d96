package dev.once.jdbc;

import dev.once.Event;
import dev.once.spi.Delivery;
import dev.once.spi.MessageDecoder;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The table queue in standard SQL: a claim is a locking read that skips rows other claims hold,
 * then one UPDATE of the rows it took.
 */
public class JdbcQueue implements QueueDialect {
  /** The columns an enqueue writes, for every row one consumer group's copy. */
  protected final String insertCopies;

  /** {@link #insertCopies} for one group's lane: its binding in key order only. */
  protected final String insertLaneCopy;

  /** {@link #insertCopies} with the row's id given: a replayed head back in its old place. */
  private final String insertCopyAt;

  /** {@link #insertCopies} where no group is in key order (else no row), not in key order. */
  private final String insertUnorderedCopies;

  protected final SqlFlavour flavour;
  protected final Sql sql;
  private final KeyOrderStatements keyOrder;

  public JdbcQueue(SqlFlavour flavour) {
    this(flavour, "FALSE");
  }

  /**
   * With {@code parkedOnEnqueue} the value of an enqueued copy's {@code parked} column, an
   * expression over the binding {@code b} with at most one parameter, the event's key, bound by
   * {@link #copy} before the destination (the standard one: {@code FALSE}, a row of a parked key
   * enqueued later is turned away by the claim's parked-key check instead).
   */
  protected JdbcQueue(SqlFlavour flavour, String parkedOnEnqueue) {
    this.flavour = flavour;
    this.sql = new Sql(flavour);
    this.keyOrder = new KeyOrderStatements(flavour, sql);
    this.insertCopies =
        """
        INSERT INTO once_queue
               (consumer_group, event_id, destination, event_key, event_type, payload, %s,
                enqueued_at, visible_at, in_key_order, parked)
        SELECT b.consumer_group, ?, ?, ?, ?, ?, %s, ?, ?, b.in_key_order,
               %s
          FROM once_queue_binding b
         WHERE b.destination = ?
        """
            .formatted(flavour.headerColumns(), flavour.headerParameters(), parkedOnEnqueue);
    this.insertLaneCopy =
        insertCopies.stripTrailing() + " AND b.consumer_group = ? AND b.in_key_order = true";
    // in_key_order and parked false as constants: no parked-key check to start, no key bound for it
    this.insertUnorderedCopies =
        insertCopies
                .replace("b.in_key_order,\n       " + parkedOnEnqueue, "FALSE, FALSE")
                .stripTrailing()
            + " AND NOT EXISTS (SELECT 1 FROM once_queue_binding o WHERE o.destination ="
            + " b.destination AND o.in_key_order = true)";
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

  @Override
  public int enqueueUnordered(Connection c, Event e, Instant now) throws SQLException {
    return sql.update(c, insertUnorderedCopies, standardCopy(e, now));
  }

  /** The parameters of {@link #insertCopies} for {@code e}: by default {@link #standardCopy}. */
  protected Object[] copy(Connection c, Event e, Instant now) throws SQLException {
    return standardCopy(e, now);
  }

  /** The parameters of {@link #insertCopies} whose {@code parked} binds nothing. */
  private static Object[] standardCopy(Event e, Instant now) {
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

  /** One statement per event: MariaDB cannot send an INSERT … SELECT as a bulk batch. */
  @Override
  public int[] enqueueInLane(Connection c, List<Event> events, String consumerId, Instant now)
      throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(insertLaneCopy)) {
      int[] counts = new int[events.size()];
      for (int i = 0; i < events.size(); i++) {
        sql.bind(ps, laneCopy(c, events.get(i), consumerId, now));
        counts[i] = ps.executeUpdate();
      }
      return counts;
    }
  }

  /** The parameters of {@link #insertLaneCopy} for {@code e}. */
  protected Object[] laneCopy(Connection c, Event e, String consumerId, Instant now)
      throws SQLException {
    Object[] copy = copy(c, e, now);
    Object[] params = java.util.Arrays.copyOf(copy, copy.length + 1);
    params[copy.length] = consumerId;
    return params;
  }

  @Override
  public boolean hasLane(Connection c, String destination, String consumerId) throws SQLException {
    return keyOrder.hasLane(c, destination, consumerId);
  }

  /** The key lanes of ordered groups on a broker (docs/ORDERING.md, "Ordered on a broker"). */
  @Override
  public boolean keepsLanes() {
    return true;
  }

  @Override
  public Map<String, String> laneKeys(
      Connection c, String destination, String consumerId, Collection<String> keys)
      throws SQLException {
    return keyOrder.laneKeys(c, destination, consumerId, keys);
  }

  /** The standard park: the head's place from a placeholder row, three statements. */
  @Override
  public void parkBrokerHead(Connection c, String consumerId, Event e, Instant now)
      throws SQLException {
    keyOrder.parkBrokerHead(c, consumerId, e, now);
  }

  /**
   * Releases the key {@code e} heads if {@code consumerId} parked it (its waiting rows back in the
   * claim's reach); returns the head's old queue id (null: not parked by this event).
   */
  private Long unpark(Connection c, Event e, String consumerId) throws SQLException {
    List<Long> heads = ParkedKeyStatements.release(sql, c, consumerId, e.id().value());
    return heads.isEmpty() ? null : heads.get(0);
  }

  @Override
  public List<Delivery> claim(Connection c, QueueClaim claim) throws SQLException {
    Map<Long, Delivery> visible = lockVisible(c, claim);
    take(c, visible.keySet(), claim.visibleUntil());
    return new ArrayList<>(visible.values());
  }

  /**
   * The group's visible rows, oldest first, up to the claim's limit, locked (skipping rows others
   * hold), by id; each decoded with its delivery count one higher.
   */
  private Map<Long, Delivery> lockVisible(Connection c, QueueClaim claim) throws SQLException {
    return lockVisible(c, claim, null, claim.limit());
  }

  /** As above, {@code limit} rows with an id above {@code after} (null: from the oldest). */
  private Map<Long, Delivery> lockVisible(Connection c, QueueClaim claim, Long after, int limit)
      throws SQLException {
    Map<Long, Delivery> visible = new LinkedHashMap<>();
    List<Object> params = new ArrayList<>(List.of(claim.consumerId(), false, claim.now()));
    if (after != null) {
      params.add(after);
    }
    params.add(limit);
    sql.list(
        c,
        """
        SELECT id, event_id, destination, event_key, event_type, payload, %s,
               delivery_count
          FROM once_queue%s
         WHERE consumer_group = ? AND parked = ? AND visible_at <= ?%s
         ORDER BY id
         LIMIT ?
        """
                .formatted(
                    flavour.headerColumns(),
                    flavour.readyIndex(),
                    after == null ? "" : " AND id > ?")
            + flavour.skipLocked(),
        rs -> {
          int count = rs.getInt("delivery_count") + 1;
          long id = rs.getLong("id");
          // a row that does not decode is handed out as malformed, to be dead-lettered alone
          visible.put(id, MessageDecoder.decode(JdbcRows.raw(flavour, rs), count, count > 1, id));
          return id;
        },
        params.toArray());
    return visible;
  }

  /** Counts a delivery of the rows with these ids and hides them until {@code visibleUntil}. */
  private void take(Connection c, Collection<Long> ids, Instant visibleUntil) throws SQLException {
    if (ids.isEmpty()) {
      return;
    }
    SqlList list = SqlList.of("bigint", new ArrayList<>(ids));
    sql.update(
        c,
        "UPDATE once_queue SET delivery_count = delivery_count + 1, visible_at = ? WHERE "
            + sql.in("id", list),
        visibleUntil,
        list);
  }

  @Override
  public boolean ordersByKey() {
    return true;
  }

  /**
   * Three statements: the visible rows are locked as {@link #claim} locks them; then one plain read
   * keeps those that head their key — no earlier row of the key enqueued in key order is in the
   * queue (in flight, in backoff or waiting) and the key is not parked; then those are taken, and
   * the others are left as they were (their locks go with the transaction). The check is a read of
   * its own, not a condition of the locking read: it runs after the locks are held, and as one
   * statement it sees a key's head row and its park in one snapshot, so it never falls between an
   * ack that deletes the head and parks the key, or a replay that unparks it and puts the head
   * back. A row in flight is locked by no one, but it is in the queue: the check sees it.
   *
   * <p>When the rows locked hold no head at all — the oldest rows of the queue are those waiting
   * behind a parked key, or behind a head in flight — the next rows are locked and checked, in a
   * window twice as large each time, until one holds a head or the queue ends: a claim that stopped
   * there would hand out nothing while every other key waited (a key parked with a batch of events
   * behind it stalled its whole group). A claim whose first window holds a head runs its three
   * statements as before.
   */
  @Override
  public List<Delivery> claimInKeyOrder(Connection c, QueueClaim claim) throws SQLException {
    Map<Long, Delivery> claimed = new LinkedHashMap<>();
    Long after = null;
    for (int window = claim.limit(); claimed.isEmpty(); window = Math.min(window * 2, 4096)) {
      Map<Long, Delivery> visible = lockVisible(c, claim, after, window);
      if (visible.isEmpty()) {
        break;
      }
      Set<Long> heads = keyOrder.heads(c, visible.keySet());
      visible.forEach(
          (id, d) -> {
            if (heads.contains(id)) {
              claimed.put(id, d);
            }
          });
      if (visible.size() < window) {
        break; // the queue's visible rows end here
      }
      after = Collections.max(visible.keySet());
    }
    take(c, claimed.keySet(), claim.visibleUntil());
    return new ArrayList<>(claimed.values());
  }

  /**
   * Parks the key of each row the group holds an open dead letter of, marks the rows waiting behind
   * a key it parked {@code parked} (out of the claim's reach), then deletes the rows, in the
   * caller's transaction: a claim's check sees the head row or the park, never neither. An ack that
   * parks nothing runs two statements, as before the mark.
   */
  @Override
  public void ackInKeyOrder(Connection c, List<Long> ids, Instant now) throws SQLException {
    SqlList list = SqlList.of("bigint", ids);
    int parkedKeys =
        sql.update(
            c,
            """
            INSERT INTO once_parked_key
                   (consumer_group, destination, event_key, event_id, head_id, parked_at)
            SELECT q.consumer_group, q.destination, q.event_key, q.event_id, q.id, ?
              FROM once_queue q
              JOIN once_dead_letter l
                ON l.consumer_id = q.consumer_group AND l.event_id = q.event_id
                   AND l.status = 'dead'
             WHERE %s AND q.event_key IS NOT NULL
               AND NOT EXISTS (SELECT 1 FROM once_parked_key p
                                WHERE p.consumer_group = q.consumer_group
                                  AND p.destination = q.destination
                                  AND p.event_key = q.event_key)
            """
                .formatted(sql.in("q.id", list)),
            now,
            list);
    if (parkedKeys > 0) {
      ParkedKeyStatements.markParked(sql, c, list);
    }
    ack(c, ids);
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
