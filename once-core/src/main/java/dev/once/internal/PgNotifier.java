package dev.once.internal;

import java.sql.Connection;
import java.sql.SQLException;
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
 * <p>Notifications are wake-ups, never the only way work is found: waiters also poll. A process
 * that dies between a commit and the notification only makes other processes find the rows at their
 * next poll.
 */
public final class PgNotifier implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(PgNotifier.class);

  private final DataSource dataSource;
  private final Send send;
  private final String channel;
  private Thread thread;
  private boolean pending;
  private boolean closed;

  /** Sends one notification on an auto-commit connection. */
  @FunctionalInterface
  public interface Send {
    void send(Connection c) throws SQLException;
  }

  /**
   * @param send sends the notification, e.g. by {@code SELECT pg_notify('once_outbox', …)}
   * @param channel for the thread's name and logs
   */
  public PgNotifier(DataSource dataSource, Send send, String channel) {
    this.dataSource = dataSource;
    this.send = send;
    this.channel = channel;
  }

  /**
   * A fresh token naming one sending engine (an instance's outbox, a table queue), so that its own
   * listener can skip its own notifications.
   */
  public static String newSender() {
    return Long.toString(
        java.util.concurrent.ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE, 36);
  }

  /** Asks for a notification soon; many calls before it is sent make one notification. */
  public synchronized void signal() {
    if (closed) {
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
    while (awaitPending()) {
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

  /** Waits for a signal and takes it; false once closed. */
  private synchronized boolean awaitPending() {
    while (!pending && !closed) {
      try {
        wait();
      } catch (InterruptedException e) {
        return false;
      }
    }
    pending = false;
    return !closed;
  }

  @Override
  public synchronized void close() {
    closed = true;
    notifyAll();
  }
}
