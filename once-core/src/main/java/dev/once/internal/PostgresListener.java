package dev.once.internal;

import java.lang.reflect.Method;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns PostgreSQL {@code NOTIFY} on one channel into calls of {@code onNotify}, on a daemon thread
 * with one connection of its own. pgjdbc is reached by reflection, so once-core does not depend on
 * it; with any other driver this does nothing and waiters fall back to polling.
 */
public final class PostgresListener implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(PostgresListener.class);
  private static final Duration RECONNECT_PAUSE = Duration.ofSeconds(1);

  private final DataSource dataSource;
  private final String channel;
  private final String listenSql;
  private final Runnable onNotify;

  /** Notifications whose payload ends with this come from this process's sender; null: none. */
  private final String ownSuffix;

  private final Thread thread;
  private volatile boolean running = true;

  /** LISTEN statements that succeeded, and notifications read, own ones included (tests). */
  private final AtomicLong listens = new AtomicLong();

  private final AtomicLong read = new AtomicLong();

  /**
   * @param channel for the thread's name and logs
   * @param listenSql the statement that subscribes, e.g. {@code LISTEN once_outbox}
   * @param ownSuffix notifications whose payload ends with it are this process's own (its waiters
   *     were woken directly) and are ignored; null to take every notification
   */
  public PostgresListener(
      DataSource dataSource,
      String channel,
      String listenSql,
      String ownSuffix,
      Runnable onNotify) {
    this.dataSource = dataSource;
    this.channel = channel;
    this.listenSql = listenSql;
    this.ownSuffix = ownSuffix;
    this.onNotify = onNotify;
    this.thread = new Thread(this::run, "once-listen-" + channel);
    this.thread.setDaemon(true);
  }

  public PostgresListener start() {
    thread.start();
    return this;
  }

  private void run() {
    while (running) {
      try (Connection c = dataSource.getConnection()) {
        Method poll = notificationsMethod(c);
        if (poll == null) {
          log.info("JDBC driver is not pgjdbc: no LISTEN on {}, waiters poll", channel);
          return;
        }
        c.setAutoCommit(true);
        try (Statement s = c.createStatement()) {
          s.execute(listenSql);
        }
        listens.incrementAndGet();
        Object pg = c.unwrap(poll.getDeclaringClass());
        while (running) {
          Object[] got = (Object[]) poll.invoke(pg, 500);
          if (got != null && fromOthers(got)) {
            onNotify.run();
          }
          if (got != null) {
            read.addAndGet(got.length);
          }
        }
      } catch (Exception e) {
        if (running) {
          log.debug("LISTEN {} lost its connection; again in {}", channel, RECONNECT_PAUSE, e);
          onNotify.run(); // waiters look again rather than trust a dead listener
          pause();
        }
      }
    }
  }

  /** Whether any of {@code notifications} (pgjdbc's PGNotification) was sent by someone else. */
  private boolean fromOthers(Object[] notifications) throws ReflectiveOperationException {
    for (Object n : notifications) {
      if (ownSuffix == null) {
        return true;
      }
      Object payload = n.getClass().getMethod("getParameter").invoke(n);
      if (!(payload instanceof String p) || !p.endsWith(ownSuffix)) {
        return true;
      }
    }
    return false;
  }

  private static Method notificationsMethod(Connection c) throws SQLException {
    try {
      Class<?> pgConnection =
          Class.forName("org.postgresql.PGConnection", false, c.getClass().getClassLoader());
      if (!c.isWrapperFor(pgConnection)) {
        return null;
      }
      return pgConnection.getMethod("getNotifications", int.class);
    } catch (ClassNotFoundException | NoSuchMethodException e) {
      return null;
    }
  }

  private void pause() {
    try {
      Thread.sleep(RECONNECT_PAUSE.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      running = false;
    }
  }

  /**
   * How many times the channel was subscribed to ({@code LISTEN} ran), once per connection: from
   * the first, notifications reach this listener (tests).
   */
  public long listens() {
    return listens.get();
  }

  /**
   * The notifications read so far, its own sender's included, counted after {@code onNotify} ran
   * for them: a test proves one was skipped by reading it counted without a call (tests).
   */
  public long notificationsRead() {
    return read.get();
  }

  @Override
  public void close() {
    running = false;
    thread.interrupt();
  }
}
