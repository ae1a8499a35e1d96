package dev.once.internal.postgres;

import java.lang.reflect.Method;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns PostgreSQL {@code NOTIFY} into calls of the subscribers' callbacks, on a daemon thread with
 * one connection of its own. pgjdbc is reached by reflection, so once-core does not depend on it;
 * with any other driver this does nothing and waiters fall back to polling.
 *
 * <p>One listener per data source and process: it {@code LISTEN}s on every channel it is given from
 * the start, and every subscriber of that data source — the outbox's relays, the table queue's
 * receivers, of every Once instance on it — shares its connection. One per channel and instance
 * held one connection of the pool each for good (two on the table queue), more than a hand-written
 * pipeline holds for the same threads. That connection is a session of its own, outside the pool,
 * where the pool's settings can be read ({@link OwnConnection}): then Once holds none of the pool's
 * connections for good. Where they can't, or where the first connection of its own is refused while
 * the pool's work, it is a connection of the pool.
 *
 * <p>While it listens, its session holds a shared advisory lock of the schema ({@link #LISTENING}),
 * so that a producer's {@link PostgresNotifier} can see whether anybody listens ({@link #anybody})
 * and notify nobody while nobody does. The session's end (a closed connection, a dead process) ends
 * the lock with the {@code LISTEN}s.
 */
public final class PostgresListener {
  private static final Logger log = LoggerFactory.getLogger(PostgresListener.class);
  private static final Duration RECONNECT_PAUSE = Duration.ofSeconds(1);

  /** The running listeners, by the data source they listen on. */
  private static final Map<DataSource, PostgresListener> RUNNING = new HashMap<>();

  private final DataSource key;
  private final DataSource dataSource;

  /**
   * Whether its session holds {@link #LISTENING} now (set after the LISTEN, cleared at its end).
   */
  private volatile boolean listening;

  /** How to open the connection outside the pool; null: it is one of the pool's. */
  private volatile OwnConnection own;

  /** Whether a connection of its own opened once: a later refusal is an outage, not a setting. */
  private boolean ownOpened;

  private final String listenSql;
  private final List<Subscription> subscriptions = new CopyOnWriteArrayList<>();
  private final Thread thread;
  private volatile boolean running = true;

  /** LISTEN statements that succeeded, and notifications read, own ones included (tests). */
  private final AtomicLong listens = new AtomicLong();

  private final AtomicLong read = new AtomicLong();

  /** How long the last subscription's end waits for the listener's thread to end. */
  static final Duration STOP_WAIT = Duration.ofSeconds(5);

  /**
   * The advisory lock a listening session holds, shared: Once's class, and the schema's hash (a
   * non-negative {@code int}, so that {@code pg_locks.objid} shows it as it is).
   */
  static final String LISTENING = "1332634469, hashtext(current_schema()) & 2147483647";

  /** Whether a session of this database holds {@link #LISTENING}: somebody listens. */
  private static final String ANYBODY =
      """
      SELECT EXISTS (SELECT 1 FROM pg_locks
                      WHERE locktype = 'advisory' AND granted AND objsubid = 2
                        AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
                        AND classid = 1332634469::oid
                        AND objid = (hashtext(current_schema()) & 2147483647)::oid)
      """;

  /** How many sessions of this database hold {@link #LISTENING}: listeners of this schema. */
  private static final String HOW_MANY =
      """
      SELECT count(*) FROM pg_locks
       WHERE locktype = 'advisory' AND granted AND objsubid = 2
         AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
         AND classid = 1332634469::oid
         AND objid = (hashtext(current_schema()) & 2147483647)::oid
      """;

  /**
   * Whether a listener of this schema other than this process's own on {@code pool} listens now
   * ({@link PostgresNotifier.Listened} for the table queue's notifications: this process's
   * receivers are woken directly, and a notification only its own listener hears is skipped by it).
   */
  public static boolean anybodyElse(Connection c, DataSource pool) throws SQLException {
    long sessions;
    try (Statement s = c.createStatement();
        java.sql.ResultSet rs = s.executeQuery(HOW_MANY)) {
      rs.next();
      sessions = rs.getLong(1);
    }
    PostgresListener own = runningFor(WrappedPool.of(pool));
    return sessions > (own != null && own.listening ? 1 : 0);
  }

  /**
   * Whether a listener of this schema listens now, in any process ({@link
   * PostgresNotifier.Listened} for the notifications of producers).
   */
  public static boolean anybody(Connection c) throws SQLException {
    try (Statement s = c.createStatement();
        java.sql.ResultSet rs = s.executeQuery(ANYBODY)) {
      return rs.next() && rs.getBoolean(1);
    }
  }

  /** One subscriber: its channel, the payload suffix of its own notifications, its callback. */
  private record Subscription(String channel, String ownSuffix, Runnable onNotify) {}

  private PostgresListener(DataSource key, DataSource dataSource, List<String> channels) {
    this.key = key;
    this.dataSource = dataSource;
    this.own = OwnConnection.of(key);
    this.listenSql =
        channels.stream().map(c -> "LISTEN " + c + "; ").reduce("", String::concat)
            + "SELECT pg_try_advisory_lock_shared("
            + LISTENING
            + ")";
    this.thread = new Thread(this::run, "once-listen");
    this.thread.setDaemon(true);
  }

  /**
   * Calls {@code onNotify} whenever {@code channel} is notified by another sender, through the one
   * listener of {@code key}'s data source, started by the first subscriber on {@code dataSource} (a
   * connection of it held for good) and stopped when the last one closes.
   *
   * @param key the data source as the user gave it: subscribers on one share the listener
   * @param dataSource where the listener's connection comes from (a wrapper of {@code key})
   * @param channels every channel the listener LISTENs on (the first subscriber's list counts)
   * @param channel the channel this subscriber wants, one of {@code channels}
   * @param ownSuffix notifications whose payload ends with it are this subscriber's own sender's
   *     (its waiters were woken directly) and are ignored; null to take every notification
   * @return closing it ends the subscription
   */
  public static AutoCloseable subscribe(
      DataSource key,
      DataSource dataSource,
      List<String> channels,
      String channel,
      String ownSuffix,
      Runnable onNotify) {
    if (!channels.contains(channel)) {
      throw new IllegalArgumentException(
          "channel '" + channel + "' is not one of the listener's " + channels);
    }
    Subscription s = new Subscription(channel, ownSuffix, onNotify);
    PostgresListener listener;
    synchronized (RUNNING) {
      listener = RUNNING.get(key);
      if (listener == null) {
        listener = new PostgresListener(key, dataSource, channels);
        RUNNING.put(key, listener);
        listener.subscriptions.add(s);
        listener.thread.start();
      } else {
        listener.subscriptions.add(s);
      }
    }
    PostgresListener l = listener;
    return () -> l.unsubscribe(s);
  }

  /** How many listeners run in this process (tests). */
  static int running() {
    synchronized (RUNNING) {
      return RUNNING.size();
    }
  }

  /** The listener running for the data source {@code key}, or null (tests). */
  public static PostgresListener runningFor(DataSource key) {
    synchronized (RUNNING) {
      return RUNNING.get(key);
    }
  }

  /**
   * Whether the listener of {@code pool} holds one of its connections for good: it does only when
   * the pool's settings can't be read to open a session of its own.
   */
  public static boolean holdsAPoolConnection(DataSource pool) {
    return OwnConnection.of(WrappedPool.of(pool)) == null;
  }

  /**
   * How many times the channels were subscribed to ({@code LISTEN} ran), once per connection: from
   * the first, notifications reach this listener (tests).
   */
  public long listens() {
    return listens.get();
  }

  /**
   * The notifications read so far, its subscribers' own senders' included, counted after their
   * callbacks ran: a test proves one was skipped by reading it counted without a call (tests).
   */
  public long notificationsRead() {
    return read.get();
  }

  /**
   * Ends a subscription; the last one stops the listener and waits (at most {@link #STOP_WAIT}) for
   * its thread to end its {@code LISTEN}s and lock and give its connection back, so that a pool
   * closed right after its Once finds no statement running on it (the demo's pool reported a lost
   * connection at every shutdown when the stop did not wait).
   */
  private void unsubscribe(Subscription s) {
    boolean stopped = false;
    synchronized (RUNNING) {
      subscriptions.remove(s);
      if (subscriptions.isEmpty() && RUNNING.get(key) == this) {
        RUNNING.remove(key);
        running = false;
        thread.interrupt();
        stopped = true;
      }
    }
    if (stopped && Thread.currentThread() != thread) {
      try {
        thread.join(STOP_WAIT.toMillis());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  private void run() {
    while (running) {
      try (Connection c = connect()) {
        OwnConnection ownOne = own;
        Method poll = notificationsMethod(c);
        if (poll == null) {
          log.info("JDBC driver is not pgjdbc: no LISTEN, waiters poll");
          return;
        }
        c.setAutoCommit(true);
        try (Statement s = c.createStatement()) {
          s.execute(listenSql);
        }
        listens.incrementAndGet();
        listening = true;
        Object pg = c.unwrap(poll.getDeclaringClass());
        try {
          while (running) {
            if (ownOne != null && ownOne.poolClosed()) {
              throw new SQLException("the pool was closed");
            }
            Object[] got = (Object[]) poll.invoke(pg, 500);
            if (got != null && got.length > 0) {
              dispatch(got);
              read.addAndGet(got.length);
            }
          }
        } finally {
          listening = false;
          if (!running) {
            stopListening(c);
          }
        }
      } catch (Exception e) {
        if (running) {
          log.debug("LISTEN lost its connection; again in {}", RECONNECT_PAUSE, e);
          subscriptions.forEach(s -> s.onNotify().run()); // look again, not trust a dead listener
          pause();
        }
      }
    }
  }

  /**
   * A connection of its own when it can open one, else one of the pool's. The first refusal of a
   * connection of its own while the pool's work (a password the pool's getters do not give, a limit
   * on the user's sessions) makes it take the pool's from then on, saying so once.
   */
  private Connection connect() throws SQLException {
    OwnConnection o = own;
    if (o != null) {
      try (Connection borrowed = dataSource.getConnection()) {
        Connection c = o.open(borrowed);
        ownOpened = true;
        return c;
      } catch (SQLException e) {
        if (ownOpened || !works(dataSource)) {
          throw e;
        }
        own = null;
        log.warn(
            "LISTEN: a connection of its own, outside the pool, was refused ({}, SQLState {}); it"
                + " holds one of the pool's connections from now on, one more than start() said",
            e.getMessage(),
            e.getSQLState());
      }
    }
    return dataSource.getConnection();
  }

  /** Whether the pool hands out a connection now. */
  private static boolean works(DataSource pool) {
    try (Connection c = pool.getConnection()) {
      return true;
    } catch (SQLException e) {
      return false;
    }
  }

  /**
   * Ends the {@code LISTEN}s and the lock that says this session listens before the connection goes
   * back to its pool (the next borrower would otherwise keep saying so) or is closed (the server
   * ends a closed session's lock a moment after the close returns; this ends it before).
   */
  private static void stopListening(Connection c) {
    Thread.interrupted(); // the stop's interrupt, not one for the statement
    try (Statement s = c.createStatement()) {
      s.execute("UNLISTEN *; SELECT pg_advisory_unlock_shared(" + LISTENING + ")");
    } catch (SQLException e) {
      log.debug("UNLISTEN failed; the pool's connection is closed or keeps them", e);
    }
  }

  /** Calls each subscriber once if any of {@code notifications} is for it from someone else. */
  private void dispatch(Object[] notifications) throws ReflectiveOperationException {
    List<String[]> got = new ArrayList<>(notifications.length);
    for (Object n : notifications) {
      Object name = n.getClass().getMethod("getName").invoke(n);
      Object payload = n.getClass().getMethod("getParameter").invoke(n);
      got.add(new String[] {String.valueOf(name), payload instanceof String p ? p : null});
    }
    for (Subscription s : subscriptions) {
      for (String[] n : got) {
        if (n[0].equals(s.channel())
            && (s.ownSuffix() == null || n[1] == null || !n[1].endsWith(s.ownSuffix()))) {
          s.onNotify().run();
          break;
        }
      }
    }
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
}
