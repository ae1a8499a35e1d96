package dev.once.internal;

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
 * <p>Notifications are wake-ups, never the only way work is found: waiters also poll. A process
 * that dies between a commit and the notification only makes other processes find the rows at their
 * next poll.
 */
public final class PostgresNotifier implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(PostgresNotifier.class);

  /** The least time between two notifications of one notifier. */
  public static final Duration SPACING = Duration.ofMillis(2);

  private final DataSource dataSource;
  private final Send send;
  private final String channel;
  private final long spacingNanos;
  private final LongSupplier nanoTime;
  private Thread thread;
  private boolean pending;
  private boolean closed;
  private long wakeups;
  private long taken;

  /** Sends one notification on an auto-commit connection. */
  @FunctionalInterface
  public interface Send {
    void send(Connection c) throws SQLException;
  }

  /**
   * @param send sends the notification, e.g. by {@code SELECT pg_notify('once_outbox', …)}
   * @param channel for the thread's name and logs
   */
  public PostgresNotifier(DataSource dataSource, Send send, String channel) {
    this(dataSource, send, channel, SPACING);
  }

  /** With another least time between two notifications (tests: zero for none). */
  PostgresNotifier(DataSource dataSource, Send send, String channel, Duration spacing) {
    this(dataSource, send, channel, spacing, System::nanoTime);
  }

  /** With another clock for the spacing (tests: one they set). */
  PostgresNotifier(
      DataSource dataSource, Send send, String channel, Duration spacing, LongSupplier nanoTime) {
    this.dataSource = dataSource;
    this.send = send;
    this.channel = channel;
    this.spacingNanos = spacing.toNanos();
    this.nanoTime = nanoTime;
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
   * Asks for a notification soon; many calls before it is sent make one notification. Only the call
   * that finds none asked for wakes the sending thread: the others would wake it to find what it
   * knows (at 2 500 commits a second, 2 000 wake-ups and context switches a second for 500
   * notifications).
   */
  public synchronized void signal() {
    if (closed || pending) {
      return;
    }
    pending = true;
    if (thread == null) {
      thread = new Thread(this::run, "once-notify-" + channel);
      thread.setDaemon(true);
      thread.start();
    }
    notifyAll();
  }

  private void run() {
    long last = nanoTime.getAsLong() - spacingNanos;
    while (awaitPending(last)) {
      last = nanoTime.getAsLong();
      try (Connection c = dataSource.getConnection()) {
        if (!c.getAutoCommit()) {
          c.setAutoCommit(true);
        }
        send.send(c);
      } catch (SQLException | RuntimeException e) {
        // a lost wake-up only delays other processes until their next poll
        log.debug("NOTIFY {} failed; other processes find the work when they poll", channel, e);
      }
    }
  }

  /**
   * Waits for a signal and, if the notification sent at {@code last} (nanoTime) is less than the
   * spacing ago, until it is that old; then takes the signal and every one since. False once
   * closed.
   */
  private synchronized boolean awaitPending(long last) {
    try {
      while (!pending && !closed) {
        wait();
        wakeups++;
      }
      long left;
      while (!closed && (left = last + spacingNanos - nanoTime.getAsLong()) > 0) {
        wait(left / 1_000_000, (int) (left % 1_000_000));
        wakeups++;
      }
    } catch (InterruptedException e) {
      return false;
    }
    pending = false;
    if (!closed) {
      taken++;
    }
    return !closed;
  }

  /**
   * Whether a signal waits to be taken, and how many the sending thread took to send so far (tests:
   * with the sends they count, when every signal asked for has been sent).
   */
  synchronized boolean pending() {
    return pending;
  }

  synchronized long taken() {
    return taken;
  }

  /** How often the sending thread woke from a wait (tests). */
  synchronized long wakeups() {
    return wakeups;
  }

  @Override
  public synchronized void close() {
    closed = true;
    notifyAll();
  }
}
