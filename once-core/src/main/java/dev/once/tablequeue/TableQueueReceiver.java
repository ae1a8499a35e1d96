package dev.once.tablequeue;

import dev.once.StoreException;
import dev.once.internal.Conflicts;
import dev.once.internal.Wakeup;
import dev.once.jdbc.Dialect;
import dev.once.jdbc.QueueClaim;
import dev.once.jdbc.QueueDialect;
import dev.once.jdbc.TransactionWaits;
import dev.once.spi.Delivery;
import dev.once.spi.Receiver;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
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
    tookAll = got == null ? tookAll : NONE;
    if (got == null) {
      got = claimOrWait(max, wait, linger);
    }
    // a full batch: there may be more, the next one claimed in this one's transaction (not after a
    // batch of one, full whenever a row is there: an empty claim ahead after each burst)
    handedOut = got.size() < max || max < 2 || ordered ? null : new HashSet<>(Rows.ids(got));
    lastMax = max;
    return got;
  }

  /** No generation: {@link #tookAll} says nothing. */
  private static final long NONE = Long.MIN_VALUE;

  /**
   * The wake-up generation read before the claim that handed out the last poll's batch, when that
   * claim took every row it could see (some, fewer than its limit, an unordered group's): while no
   * signal came since, a claim would find nothing that a signal did not announce.
   */
  private long tookAll = NONE;

  /**
   * {@link #poll}'s claims and waits. It waits before its first claim when another receiver of the
   * group was woken to claim and has not yet begun (that claim finds what is there now; see {@link
   * Wakeup#awaitLook}), or when its last claim took every row it could see and no signal came since
   * (an ordered group's claim does not: the ack of a key's head, which sends no signal, lets its
   * next row be claimed). Each of the two was an empty claim in three or four (probe, 4 workers).
   * The first claim is otherwise made even when a claim ahead just came back empty: waiting for a
   * signal then (a row committed after that claim's snapshot sends one) made a lone worker linger
   * after it, a third fewer orders a second (`--workers 1`, 4 pairs). Rows that become visible with
   * no signal (a claim or a retry's delay ran out) are found within the idle wait, as before.
   */
  private List<Delivery> claimOrWait(int max, Duration wait, Duration linger)
      throws InterruptedException {
    long deadline = System.nanoTime() + wait.toNanos();
    boolean waited = false;
    boolean chosen = false; // a signal chose it to look: until it claims, it wakes no other
    while (true) {
      long seen = wakeup.generation();
      if (!chosen && (wakeup.lookComing() || !waited && seen == tookAll)) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          return List.of(); // the claim to come finds what is there
        }
        chosen = wakeup.awaitLook(seen, Duration.ofNanos(Math.min(left, idleWait.toNanos())));
        waited = true;
        continue;
      }
      if (waited
          && !linger.isZero()
          && (opened || clock.instant().isBefore(lastGot.plus(linger)))) {
        linger(Math.min(linger.toNanos(), deadline - System.nanoTime()), chosen);
      }
      if (chosen) {
        wakeup.looking();
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
        tookAll = got.isEmpty() || got.size() >= max || ordered ? NONE : seen;
        return got;
      }
      chosen = wakeup.awaitLook(seen, Duration.ofNanos(Math.min(left, idleWait.toNanos())));
      waited = true;
    }
  }

  /** Sleeps {@code nanos}; one whom a signal {@code chosen} gives up its look if interrupted. */
  private void linger(long nanos, boolean chosen) throws InterruptedException {
    try {
      if (nanos > 0) {
        Thread.sleep(nanos / 1_000_000, (int) (nanos % 1_000_000));
      }
    } catch (InterruptedException e) {
      if (chosen) {
        wakeup.looking();
        wakeup.signal(); // what the signals during the pause announced is another's to claim
      }
      throw e;
    }
  }

  /**
   * Acknowledges {@code deliveries} in a batch's transaction on {@code c} (see {@link #ack}). Where
   * they are the whole batch that the receiver of {@code transport} which polled last on this
   * thread handed out (a batch of several transactions, or with retries, is not), of an unordered
   * group, the same round trip claims the next batch; that receiver's next poll hands it out once
   * {@link #committed} says the transaction committed. With {@code commit}, an unordered group's
   * ack commits too, in its round trip, where the dialect can ({@link
   * QueueDialect#commitsWithAck}).
   */
  static void ackInTransaction(
      Object transport,
      Dialect dialect,
      OrderedGroups ordered,
      Connection c,
      String destination,
      String consumerId,
      List<Delivery> deliveries,
      Instant now,
      boolean commit)
      throws SQLException {
    List<Long> ids = Rows.ids(deliveries); // not empty: only what came to an end is acked
    boolean inKeyOrder = ordered.contains(destination, consumerId);
    boolean commits = commit && !inKeyOrder && dialect.queue().commitsWithAck();
    TableQueueReceiver polled = POLLING.get();
    if (polled != null
        && polled.transport == transport
        && polled.ackedAndClaimedAhead(c, destination, consumerId, ids, commits)) {
      return;
    }
    if (inKeyOrder) {
      dialect.queue().ackInKeyOrder(c, ids, now);
    } else {
      ackAndClaim(dialect.queue(), c, ids, null, commits);
    }
  }

  /** Whether it acknowledged {@code ids} and claimed ahead; if not, no claim is pending. */
  private boolean ackedAndClaimedAhead(
      Connection c, String destination, String consumerId, List<Long> ids, boolean commit)
      throws SQLException {
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
    List<Delivery> claimed = ackAndClaim(dialect.queue(), c, ids, claim, commit);
    if (claimed != null) {
      tentative = claimed;
      tentativeFor = idSet;
    }
    return true;
  }

  private static List<Delivery> ackAndClaim(
      QueueDialect q, Connection c, List<Long> ids, QueueClaim claim, boolean commit)
      throws SQLException {
    return commit ? q.ackClaimAndCommit(c, ids, claim) : q.ackAndClaim(c, ids, claim);
  }

  /**
   * The transaction of {@code transport}'s {@link #ackInTransaction} with {@code deliveries}
   * committed: its claim is the next poll's.
   */
  static void committed(
      Object transport, String destination, String consumerId, List<Delivery> deliveries) {
    TableQueueReceiver polled = POLLING.get();
    if (polled != null && polled.transport == transport) {
      polled.committed(destination, consumerId, Rows.ids(deliveries));
    }
  }

  private void committed(String destination, String consumerId, List<Long> ids) {
    if (tentative == null
        || !group.equals(consumerId)
        || !this.destination.equals(destination)
        || !tentativeFor.equals(new HashSet<>(ids))) {
      return;
    }
    List<Delivery> claimed = Rows.inIdOrder(tentative);
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
    return Rows.inIdOrder(deliveries);
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
    List<Long> ids = Rows.ids(deliveries);
    try {
      transaction(
          c -> {
            switch (what) {
              case "ack" -> {
                if (ordered) {
                  dialect.queue().ackInKeyOrder(c, ids, clock.instant());
                } else {
                  dialect.queue().ack(c, ids);
                }
              }
              case "release" -> dialect.queue().release(c, ids, visibleAt);
              default -> dialect.queue().nack(c, ids, visibleAt);
            }
            return null;
          });
    } catch (SQLException e) {
      throw new StoreException("table queue " + what + " of " + ids.size() + " deliveries", e);
    }
    if (visibleAt != null && !visibleAt.isAfter(clock.instant())) {
      wakeup.signal(); // visible again now: the group's receivers may be waiting for a signal
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
