package dev.once.internal.postgres;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.function.LongSupplier;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sends one {@code NOTIFY} after commits instead of one inside each of them.
 *
 * <p>PostgreSQL serialises notifying transactions with a database-wide lock held from just before
 * their commit until after their commit record is flushed. A {@code pg_notify} inside every
 * producer, consumer and queue transaction therefore makes those commits take turns, one fsync each
 * and no group commit: at a few thousand commits per second it was the single largest wait in
 * {@code once bench} ({@code Lock:object} on {@code COMMIT}). Here the committing thread only calls
 * {@link #signal()} after its commit returned; a daemon thread sends one notification for all
 * signals since its last one, in a transaction of its own that writes no WAL and so holds the lock
 * for microseconds.
 *
 * <p>Two notifications are at least {@link #SPACING} apart. Under load nearly every commit found
 * the previous notification sent and asked for one more: thousands per second, each a transaction
 * on the pool and a wake-up of every listening backend and of this process's own listener, for
 * relays and receivers that were busy and did not wait for them. Spaced, the first commit after a
 * quiet spell is announced at once, and a burst costs one notification per {@code SPACING}.
 *
 * <p>A committing transaction may also carry the notification itself ({@link #claim()}: the
 * producers of a process without a relay, whose notifications wake the relays of other processes).
 * One transaction per {@code SPACING} then sends it inside, in the round trip of its outbox row and
 * delivered by its commit, so that no transaction of its own is needed: sent from this thread, they
 * were a fifth of a commit more per order on the pool and the server. The thread then only sends
 * what no transaction carried: for commits after which none claimed one within twice the spacing
 * (the last commits of a burst).
 *
 * <p>Where it is told how to see whether anybody listens ({@link Listened}: a {@link
 * PostgresListener} holds a lock that says so while it listens), it notifies nobody while nobody
 * listens: it looks at most once per {@link #LOOK_AGAIN}, on its own connection, and a commit after
 * which it found nobody carries nothing and wakes no thread. Producers alone, with no relay running
 * anywhere (or with relays that only poll), paid a {@code NOTIFY} per spacing for nobody: each took
 * PostgreSQL's notification lock across its commit's flush and queued a message no backend read —
 * about a third of the producers' rate in the hand-written harness. A relay that starts listening
 * while producers commit is told of their rows within {@code LOOK_AGAIN} (sooner by its own poll
 * with the default idle wait); rows committed before it listened it finds by looking when it
 * starts.
 *
 * <p>Notifications are wake-ups, never the only way work is found: waiters also poll. A process
 * that dies between a commit and the notification only makes other processes find the rows at their
 * next poll.
 */
public final class PostgresNotifier implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(PostgresNotifier.class);

  /** The least time between two notifications of one notifier. */
  public static final Duration SPACING = Duration.ofMillis(2);

  /** How long a look for listeners ({@link Listened}) is trusted. */
  public static final Duration LOOK_AGAIN = Duration.ofSeconds(1);

  /** Steps of the sending thread other than sending for a count of commits. */
  private static final long CLOSED = -1;

  private static final long LOOK = -2;

  private final DataSource dataSource;
  private final Send send;
  private final String channel;
  private final long spacingNanos;
  private final LongSupplier nanoTime;

  /** Null: somebody is taken to listen, always (no way to see). */
  private final Listened listened;

  private Thread thread;

  /**
   * Whether the last look found somebody listening ({@link #listened}); until the first look, taken
   * to: the first commits notify as they did before anybody looked.
   */
  private boolean heard = true;

  /**
   * Whether the last look found nobody listening, and when it looked: what {@link #claim()} reads
   * without the lock (written by {@link #look()} under it, {@link #quietAt} first).
   */
  private volatile boolean quiet;

  private volatile long quietAt;

  /** nanoTime of the last look; {@link #LOOK_AGAIN} before the start: the first commit looks. */
  private long lookedAt;

  /** Whether a commit found the last look too old and the thread is to look again. */
  private boolean lookAsked;

  private long looks;

  /** Commits that asked for a notification ({@link #signal()}), counted. */
  private long owed;

  /** The first {@code covered} of {@link #owed} are followed by a notification sent or carried. */
  private long covered;

  /** nanoTime of the last notification sent or claimed by a transaction. */
  private long last;

  /** Whether transactions carry notifications ({@link #claim()}): the thread then waits longer. */
  private boolean carried;

  private boolean closed;
  private long wakeups;
  private long sent;

  /** Sends one notification on an auto-commit connection. */
  @FunctionalInterface
  public interface Send {
    void send(Connection c) throws SQLException;
  }

  /** Whether anybody listens on the channel now, asked on an auto-commit connection. */
  @FunctionalInterface
  public interface Listened {
    boolean anybody(Connection c) throws SQLException;
  }

  /**
   * @param send sends the notification, e.g. by {@code SELECT pg_notify('once_outbox', …)}
   * @param channel for the thread's name and logs
   */
  public PostgresNotifier(DataSource dataSource, Send send, String channel) {
    this(dataSource, send, null, channel);
  }

  /**
   * @param listened whether anybody listens (null: always taken to), looked at once per {@link
   *     #LOOK_AGAIN} at most; nothing is sent while nobody does
   */
  public PostgresNotifier(DataSource dataSource, Send send, Listened listened, String channel) {
    this(dataSource, send, listened, channel, SPACING, System::nanoTime);
  }

  /** With another least time between two notifications (tests: zero for none). */
  PostgresNotifier(DataSource dataSource, Send send, String channel, Duration spacing) {
    this(dataSource, send, channel, spacing, System::nanoTime);
  }

  /** With a clock of its own for the spacing (tests: a quiet spell without waiting it out). */
  PostgresNotifier(
      DataSource dataSource, Send send, String channel, Duration spacing, LongSupplier nanoTime) {
    this(dataSource, send, null, channel, spacing, nanoTime);
  }

  /** With a look for listeners and a clock of its own (tests). */
  PostgresNotifier(
      DataSource dataSource,
      Send send,
      Listened listened,
      String channel,
      Duration spacing,
      LongSupplier nanoTime) {
    this.dataSource = dataSource;
    this.send = send;
    this.listened = listened;
    this.channel = channel;
    this.spacingNanos = spacing.toNanos();
    this.nanoTime = nanoTime;
    this.last = nanoTime.getAsLong() - spacingNanos;
    this.lookedAt = nanoTime.getAsLong() - LOOK_AGAIN.toNanos();
  }

  /**
   * A fresh token naming one sending engine (an instance's outbox, a table queue), so that its own
   * listener can skip its own notifications.
   */
  public static String newSender() {
    return Long.toString(
        java.util.concurrent.ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE, 36);
  }

  /**
   * Asks for a notification soon, after a commit; many calls before it is sent make one
   * notification. Only the call that finds none asked for wakes the sending thread: the others
   * would wake it to find what it knows (at 2 500 commits a second, 2 000 wake-ups and context
   * switches a second for 500 notifications). Nor does a call while the last look found nobody
   * listening: the thread looks again when that look is {@link #LOOK_AGAIN} old.
   */
  public synchronized void signal() {
    if (closed) {
      return;
    }
    boolean waiting = owed == covered && (heard || !fresh(nanoTime.getAsLong()));
    owed++;
    start();
    if (waiting) {
      notifyAll();
    }
  }

  private void start() {
    if (thread == null) {
      thread = new Thread(this::run, "once-notify-" + channel);
      thread.setDaemon(true);
      thread.start();
    }
  }

  /**
   * Whether the calling transaction should carry a notification itself: true for one transaction
   * per spacing. It then sends the notification inside the transaction ({@code
   * PostgresStore.insertOutboxNotifying}) and, after its commit, calls {@link #carried(long)} with
   * the returned ticket; a transaction that does not carry one calls {@link #signal()} after its
   * commit. None while the last look found nobody listening; a claim that finds the look {@link
   * #LOOK_AGAIN} old has the thread look again (the transaction does not wait for it).
   *
   * @return a ticket (0 or more) if this transaction carries a notification; -1 if not
   */
  public long claim() {
    if (quiet && nanoTime.getAsLong() - quietAt < LOOK_AGAIN.toNanos()) {
      return -1; // nobody listens, seen lately: what the locked claim answers, without the lock
    }
    return claimLocked();
  }

  private synchronized long claimLocked() {
    long now = nanoTime.getAsLong();
    if (closed) {
      return -1;
    }
    if (!fresh(now) && !lookAsked) {
      lookAsked = true;
      start();
      notifyAll();
    }
    if (!heard || now - last < spacingNanos) {
      return -1;
    }
    last = now;
    carried = true;
    // the commits signalled so far returned before this claim, so before this commit
    return owed;
  }

  /**
   * A transaction that claimed {@code ticket} committed: its notification follows every commit
   * signalled before the claim.
   */
  public synchronized void carried(long ticket) {
    if (ticket > covered) {
      covered = ticket;
    }
  }

  /** Whether the last look for listeners is recent enough to trust (always, without looks). */
  private boolean fresh(long now) {
    return listened == null || now - lookedAt < LOOK_AGAIN.toNanos();
  }

  private void run() {
    long upTo;
    while ((upTo = awaitOwed()) != CLOSED) {
      if (upTo == LOOK) {
        look();
        continue;
      }
      try (Connection c = dataSource.getConnection()) {
        if (!c.getAutoCommit()) {
          c.setAutoCommit(true);
        }
        send.send(c);
      } catch (SQLException | RuntimeException e) {
        // a lost wake-up only delays other processes until their next poll
        log.debug("NOTIFY {} failed; other processes find the work when they poll", channel, e);
      }
      carried(upTo); // sent or lost: not sent again for the same commits
    }
  }

  /** Looks whether anybody listens; if it cannot tell, takes it that somebody does. */
  private void look() {
    boolean anybody;
    try (Connection c = dataSource.getConnection()) {
      if (!c.getAutoCommit()) {
        c.setAutoCommit(true);
      }
      anybody = listened.anybody(c);
    } catch (SQLException | RuntimeException e) {
      log.debug("could not see who listens on {}; notifying", channel, e);
      anybody = true;
    }
    synchronized (this) {
      heard = anybody;
      lookedAt = nanoTime.getAsLong();
      quietAt = lookedAt;
      quiet = !anybody;
      lookAsked = false;
      looks++;
    }
  }

  /**
   * Waits for a commit no notification follows yet and until the last notification is the spacing
   * old (twice the spacing where transactions carry them: one of them may still carry it); then
   * takes the commits signalled so far and returns their count, having set the time of the
   * notification it is about to send. {@link #LOOK} when it must first look for listeners (the last
   * look is {@link #LOOK_AGAIN} old and a commit waits); commits after which it found nobody
   * listening are passed over. {@link #CLOSED} once closed.
   */
  private synchronized long awaitOwed() {
    try {
      while (!closed) {
        long now = nanoTime.getAsLong();
        if (lookAsked) {
          return LOOK;
        }
        if (owed == covered) {
          long stale = lookedAt + LOOK_AGAIN.toNanos() - now;
          if (listened != null && !heard && stale > 0) { // commits now wake nobody: look later
            wait(stale / 1_000_000, (int) (stale % 1_000_000));
          } else {
            wait();
          }
          wakeups++;
          continue;
        }
        if (!fresh(now)) {
          return LOOK;
        }
        if (!heard) {
          covered = owed; // nobody listened after these commits: nobody to tell
          continue;
        }
        long left = last + (carried ? 2 * spacingNanos : spacingNanos) - nanoTime.getAsLong();
        if (left <= 0) {
          last = nanoTime.getAsLong();
          sent++;
          return owed;
        }
        wait(left / 1_000_000, (int) (left % 1_000_000));
        wakeups++;
      }
    } catch (InterruptedException e) {
      return CLOSED;
    }
    return CLOSED;
  }

  /** How often the thread looked whether anybody listens (tests). */
  synchronized long looks() {
    return looks;
  }

  /** How often the sending thread woke from a wait (tests). */
  synchronized long wakeups() {
    return wakeups;
  }

  /** Commits no notification sent or carried follows yet (tests). */
  synchronized long owing() {
    return owed - covered;
  }

  /** How many notifications the sending thread sent, not counting those transactions carried. */
  synchronized long sentByThread() {
    return sent;
  }

  /**
   * Whether a commit waits for a notification the sending thread has not taken yet (tests: with
   * {@link #taken()} and the sends they count, when every notification asked for has been sent).
   */
  synchronized boolean pending() {
    return owed != covered;
  }

  /** How many notifications the sending thread took to send so far (tests). */
  synchronized long taken() {
    return sent;
  }

  @Override
  public synchronized void close() {
    closed = true;
    notifyAll();
  }
}
