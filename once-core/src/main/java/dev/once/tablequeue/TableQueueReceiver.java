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
import java.util.List;
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

  TableQueueReceiver(
      DataSource dataSource,
      Dialect dialect,
      TransactionWaits waits,
      String group,
      Duration visibilityTimeout,
      Duration idleWait,
      Clock clock,
      Wakeup wakeup,
      boolean ordered) {
    this.dataSource = dataSource;
    this.dialect = dialect;
    this.waits = waits;
    this.group = group;
    this.visibilityTimeout = visibilityTimeout;
    this.idleWait = idleWait;
    this.clock = clock;
    this.wakeup = wakeup;
    this.ordered = ordered;
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

  @Override
  public void close() {
    // Nothing is held: unacknowledged rows come back when their visibility timeout runs out.
  }
}
