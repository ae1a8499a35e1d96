package dev.once.tablequeue;

import dev.once.StoreException;
import dev.once.internal.Conflicts;
import dev.once.internal.Wakeup;
import dev.once.jdbc.Dialect;
import dev.once.jdbc.QueueClaim;
import dev.once.jdbc.TransactionWaits;
import dev.once.spi.Delivery;
import dev.once.spi.Receiver;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import javax.sql.DataSource;

/** Claims, acknowledges and returns table-queue rows of one consumer group. */
final class TableQueueReceiver implements Receiver {
  private final DataSource dataSource;
  private final Dialect dialect;
  private final TransactionWaits waits;
  private final String group;
  private final Duration visibilityTimeout;
  private final Duration idleWait;
  private final Clock clock;

  /** Its group's: a signal wakes one receiver of the group (see {@link QueueSignals}). */
  private final Wakeup wakeup;

  /** Whether the group is ordered: claims in key order, acks that park dead-lettered keys. */
  private final boolean ordered;

  /**
   * When a claim last found rows, on the transport's clock (tests move it instead of sleeping
   * through a quiet spell); none yet: the first wait lingers, as just opened.
   */
  private Instant lastGot = Instant.MIN;

  private boolean opened = true;

  /** The group's destination: an acknowledgement in a batch's transaction names it. */
  private final String destination;

  /** The receiver that last polled on each thread. */
  private static final ThreadLocal<TableQueueReceiver> POLLING = new ThreadLocal<>();

  /** The transport that made it: a batch's transaction on another one's data source is not its. */
  private final Object transport;

  /*
   * Claims ahead, in the batch's transaction (unordered groups on PostgreSQL): the transaction that
   * acknowledges the whole of a full batch a poll handed out also claims the next one, and the next poll
   * hands those rows out once that transaction committed. Under load a batch then costs one
   * transaction instead of a claim's and the batch's; the claim's delivery counts still commit
   * before those rows' handlers run, which is what bounds a crash loop.
   */

  /**
   * The ids of the batch the last poll handed out if it was full (else the queue was drained: a
   * claim ahead would mostly find nothing, a statement per batch for nothing), until a claim ahead
   * for it committed.
   */
  private Set<Long> handedOut;

  /** The batch size of the last poll: a claim ahead claims as many. */
  private int lastMax;

  /** Rows claimed ahead in a transaction not known to have committed, and the ids it acks. */
  private List<Delivery> tentative;

  private Set<Long> tentativeFor;

  /** Rows claimed ahead in a committed transaction: the next poll's batch. */
  private List<Delivery> ahead;

  private volatile boolean closed;

  TableQueueReceiver(
      DataSource dataSource,
      Dialect dialect,
      TransactionWaits waits,
      String group,
      Duration visibilityTimeout,
      Duration idleWait,
      Clock clock,
      Wakeup wakeup,
      boolean ordered,
      String destination,
      Object transport) {
    this.dataSource = dataSource;
    this.dialect = dialect;
    this.waits = waits;
    this.group = group;
    this.visibilityTimeout = visibilityTimeout;
    this.idleWait = idleWait;
    this.clock = clock;
    this.wakeup = wakeup;
    this.ordered = ordered;
    this.destination = destination;
    this.transport = transport;
  }

  @Override
  public List<Delivery> poll(int max, Duration wait) throws InterruptedException {
    return poll(max, wait, Duration.ZERO);
  }

  /**
   * After a wait (nothing was there at the first claim), sleeps {@code linger} before claiming
   * again, so that the rows committed meanwhile come in the same claim — when rows come at least
   * one per {@code linger} (the last claim that found rows was less than {@code linger} ago), and
   * on a receiver's first claims; a row that comes alone after a quiet spell is claimed at once
   * instead of waiting for a second that is not expected.
   */
  @Override
  public List<Delivery> poll(int max, Duration wait, Duration linger) throws InterruptedException {
    POLLING.set(this);
    tentative = null; // claimed in a transaction that did not commit (as far as this knows)
    List<Delivery> got = ahead;
    ahead = null;
    if (got == null) {
      got = claimOrWait(max, wait, linger);
    }
    // a full batch: there may be more, the next one claimed in this one's transaction (not after a
    // batch of one, full whenever a row is there: an empty claim ahead after each burst)
    handedOut = got.size() < max || max < 2 || ordered ? null : new HashSet<>(ids(got));
    lastMax = max;
    return got;
  }

  /**
   * {@link #poll}'s claims and waits. The first claim is made even when a claim ahead just came
   * back empty: waiting for a signal then (a row committed after that claim's snapshot sends one)
   * made a lone worker linger after it, a third fewer orders a second (`--workers 1`, 4 pairs).
   */
  private List<Delivery> claimOrWait(int max, Duration wait, Duration linger)
      throws InterruptedException {
    long deadline = System.nanoTime() + wait.toNanos();
    boolean waited = false;
    while (true) {
      long seen = wakeup.generation();
      if (waited
          && !linger.isZero()
          && (opened || clock.instant().isBefore(lastGot.plus(linger)))) {
        long pause = Math.min(linger.toNanos(), deadline - System.nanoTime());
        if (pause > 0) {
          Thread.sleep(pause / 1_000_000, (int) (pause % 1_000_000));
        }
      }
      List<Delivery> got = claim(max);
      if (!got.isEmpty()) {
        lastGot = clock.instant();
        opened = false;
      }
      if (got.size() >= max) {
        wakeup.signal(); // a signal woke this receiver alone: there may be more for the next one
      }
      long left = deadline - System.nanoTime();
      if (!got.isEmpty() || left <= 0) {
        return got;
      }
      wakeup.await(seen, Duration.ofNanos(Math.min(left, idleWait.toNanos())));
      waited = true;
    }
  }

  /**
   * Acknowledges {@code deliveries} in a batch's transaction on {@code c} (see {@link #ack}). Where
   * they are the whole batch that the receiver of {@code transport} which polled last on this
   * thread handed out (a batch of several transactions, or with retries, is not), of an unordered
   * group, the same round trip claims the next batch; that receiver's next poll hands it out once
   * {@link #committed} says the transaction committed.
   */
  static void ackInTransaction(
      Object transport,
      Dialect dialect,
      OrderedGroups ordered,
      Connection c,
      String destination,
      String consumerId,
      List<Delivery> deliveries,
      Instant now)
      throws SQLException {
    List<Long> ids = ids(deliveries);
    TableQueueReceiver polled = POLLING.get();
    if (!ids.isEmpty()
        && (polled == null
            || polled.transport != transport
            || !polled.ackedAndClaimedAhead(c, destination, consumerId, ids))) {
      if (ordered.contains(destination, consumerId)) {
        dialect.queue().ackInKeyOrder(c, ids, now);
      } else {
        dialect.queue().ackAndClaim(c, ids, null);
      }
    }
  }

  /** Whether it acknowledged {@code ids} and claimed ahead; if not, no claim is pending. */
  private boolean ackedAndClaimedAhead(
      Connection c, String destination, String consumerId, List<Long> ids) throws SQLException {
    tentative = null;
    Set<Long> idSet = new HashSet<>(ids);
    if (closed
        || handedOut == null
        || !group.equals(consumerId)
        || !this.destination.equals(destination)
        || !handedOut.equals(idSet)) {
      return false;
    }
    Instant now = clock.instant();
    QueueClaim claim = new QueueClaim(group, now, lastMax, now.plus(visibilityTimeout));
    List<Delivery> claimed = dialect.queue().ackAndClaim(c, ids, claim);
    if (claimed != null) {
      tentative = claimed;
      tentativeFor = idSet;
    }
    return true;
  }

  /**
   * The transaction of {@code transport}'s {@link #ackInTransaction} with {@code deliveries}
   * committed: its claim is the next poll's.
   */
  static void committed(
      Object transport, String destination, String consumerId, List<Delivery> deliveries) {
    TableQueueReceiver polled = POLLING.get();
    if (polled != null && polled.transport == transport) {
      polled.committed(destination, consumerId, ids(deliveries));
    }
  }

  private void committed(String destination, String consumerId, List<Long> ids) {
    if (tentative == null
        || !group.equals(consumerId)
        || !this.destination.equals(destination)
        || !tentativeFor.equals(new HashSet<>(ids))) {
      return;
    }
    List<Delivery> claimed = inIdOrder(tentative);
    tentative = null;
    handedOut = null; // one claim ahead per poll
    if (claimed.isEmpty()) {
      return;
    }
    ahead = claimed;
    lastGot = clock.instant();
    opened = false;
    if (claimed.size() >= lastMax) {
      wakeup.signal(); // as a full claim does: there may be more for the next receiver
    }
  }

  private List<Delivery> claim(int max) {
    Instant now = clock.instant();
    QueueClaim claim = new QueueClaim(group, now, max, now.plus(visibilityTimeout));
    // A claim lost in a database crash only hides the rows for less time and loses one
    // delivery-count increment; any later synchronous commit (the consumer's) flushes it anyway.
    List<Delivery> deliveries;
    try {
      deliveries =
          Conflicts.inOwnTransaction(
              dataSource,
              dialect,
              c -> dialect.queue().claimAndCommit(c, dialect.flavour(), waits, claim, ordered));
    } catch (SQLException e) {
      throw new StoreException("table queue claim for " + group, e);
    }
    return inIdOrder(deliveries);
  }

  private static final Comparator<Delivery> BY_ID =
      Comparator.comparingLong(d -> (Long) d.handle());

  /**
   * {@code deliveries} by row id: as they are when the claim returned them so, else a sorted copy.
   */
  static List<Delivery> inIdOrder(List<Delivery> deliveries) {
    for (int i = 1; i < deliveries.size(); i++) {
      if (BY_ID.compare(deliveries.get(i - 1), deliveries.get(i)) > 0) {
        List<Delivery> sorted = new ArrayList<>(deliveries);
        sorted.sort(BY_ID);
        return sorted;
      }
    }
    return deliveries;
  }

  /**
   * Runs {@code work} in one engine transaction; a deadlock with another receiver's claim or ack
   * (InnoDB's next-key locks on the queue table) rolls it back whole, and it runs again instead of
   * failing as a store outage.
   */
  private <T> T transaction(Conflicts.Work<T> work) throws SQLException {
    return Conflicts.inEngineTransaction(dataSource, dialect, waits, work);
  }

  @Override
  public void ack(List<Delivery> deliveries) {
    // Losing an ack in a database crash only means a redelivery, which the inbox turns into a
    // DUPLICATE: the ack commits asynchronously (see SqlFlavour#beginEngineTransaction).
    settle("ack", deliveries, null);
  }

  @Override
  public void nack(List<Delivery> deliveries, Duration delay) {
    settle("nack", deliveries, clock.instant().plus(delay));
  }

  /** Undoes the claim of these rows, delivery count included: visible at once, not redelivered. */
  @Override
  public void release(List<Delivery> deliveries) {
    settle("release", deliveries, clock.instant());
  }

  private void settle(String what, List<Delivery> deliveries, Instant visibleAt) {
    if (deliveries.isEmpty()) {
      return;
    }
    List<Long> ids = ids(deliveries);
    try {
      transaction(
          c -> {
            switch (what) {
              case "ack" -> ack(dialect, ordered, c, ids, clock.instant());
              case "release" -> dialect.queue().release(c, ids, visibleAt);
              default -> dialect.queue().nack(c, ids, visibleAt);
            }
            return null;
          });
    } catch (SQLException e) {
      throw new StoreException("table queue " + what + " of " + ids.size() + " deliveries", e);
    }
  }

  /** The row ids of {@code deliveries}. */
  static List<Long> ids(List<Delivery> deliveries) {
    List<Long> ids = new ArrayList<>(deliveries.size());
    for (Delivery d : deliveries) {
      ids.add((Long) d.handle());
    }
    return ids;
  }

  /**
   * Deletes the rows {@code ids} in the transaction on {@code c}; in an {@code ordered} group,
   * parks the key of each one the group dead-lettered, in the same statement.
   */
  static void ack(Dialect dialect, boolean ordered, Connection c, List<Long> ids, Instant now)
      throws SQLException {
    if (ordered) {
      dialect.queue().ackInKeyOrder(c, ids, now);
    } else {
      dialect.queue().ack(c, ids);
    }
  }

  /**
   * Releases the rows claimed ahead that no poll handed out; the others are not held: they come
   * back when their visibility timeout runs out.
   */
  @Override
  public void close() {
    closed = true;
    List<Delivery> held = ahead;
    ahead = null;
    if (held != null) {
      release(held);
    }
  }
}
