package dev.once;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.once.internal.postgres.PostgresListener;
import dev.once.jdbc.Channel;
import dev.once.jdbc.Dialects;
import dev.once.tablequeue.TableQueueTransport;
import dev.once.test.TestDatabase;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Collections;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.postgresql.core.BaseConnection;
import org.postgresql.core.TransactionState;

/**
 * What {@code tx.publish} costs a producer transaction against the raw INSERT a team would write:
 * on the producer's thread the same connections, statements run (round trips) and commits — one
 * business INSERT, one outbox INSERT, one commit. The wake-up of other processes' relays ({@code
 * NOTIFY}, at least {@code PostgresNotifier.SPACING} apart) rides in the round trip of a producer
 * transaction's outbox row, delivered by its commit: no transaction of its own (when the notifier's
 * thread sent each of them, 400 producer transactions were followed by 82 more on the pool). The
 * twin with one statement more shows the count sees it.
 */
class ProducerCostTest {
  static final int TRANSACTIONS = 40;

  record Cost(
      long connections,
      long executions,
      long commits,
      long otherThreads,
      long notifiesCarried,
      long notifiesApart) {
    Cost(long connections, long executions, long commits, long otherThreads) {
      this(connections, executions, commits, otherThreads, 0, 0);
    }

    /** Per transaction on the producer's thread; what other threads did, in total. */
    Cost per(int n) {
      return new Cost(connections / n, executions / n, commits / n, otherThreads);
    }

    /** Only what the producer's thread did, per transaction, for comparing with the raw one. */
    Cost onTheProducersThread(int n) {
      return new Cost(connections / n, executions / n, commits / n, 0);
    }
  }

  @Test
  void txPublishCostsTheProducerWhatTheRawInsertCosts() throws Exception {
    try (TestDatabase db = TestDatabase.embedded()) {
      db.execute("CREATE TABLE producer_orders (order_id bigint PRIMARY KEY)");
      Cost raw = raw(db.dataSource(), 0).per(TRANSACTIONS);
      Cost once = once(db.dataSource(), 1_000, false, 0);
      assertThat(raw).as("the raw producer, per transaction").isEqualTo(new Cost(1, 2, 1, 0));
      assertThat(once.onTheProducersThread(TRANSACTIONS))
          .as("Once's producer, per transaction, on its thread")
          .isEqualTo(raw);
      assertThat(once.notifiesCarried())
          .as("NOTIFYs carried by producer transactions, with their outbox rows")
          .isBetween(1L, (long) TRANSACTIONS);
      // the notifier's thread sends only for commits after which no transaction carried one
      // within twice the spacing: the last of the burst, or after a stall of the producer
      assertThat(once.otherThreads())
          .as("statements on other threads (a NOTIFY no transaction carried)")
          .isEqualTo(once.notifiesApart())
          .isLessThanOrEqualTo(once.notifiesCarried() + 1);
    }
  }

  /**
   * Producers alone at a pace slower than one per {@code PostgresNotifier.SPACING} (an API at a few
   * hundred orders a second): each transaction carries its own notification in its outbox row's
   * round trip — the other processes' relays are woken by the commit itself, and nothing runs on
   * another thread or connection.
   */
  @Test
  void pacedProducersCarryTheirNotificationsInTheirOwnTransactions() throws Exception {
    try (TestDatabase db = TestDatabase.embedded()) {
      db.execute("CREATE TABLE producer_orders (order_id bigint PRIMARY KEY)");
      Cost once = once(db.dataSource(), 1_000, false, 3);
      assertThat(once.onTheProducersThread(TRANSACTIONS))
          .as("Once's producer, per transaction, on its thread")
          .isEqualTo(new Cost(1, 2, 1, 0));
      assertThat(once.notifiesCarried())
          .as("NOTIFYs carried by the %d producer transactions", TRANSACTIONS)
          .isEqualTo(TRANSACTIONS);
      assertThat(once.otherThreads()).as("statements on other threads").isZero();
    }
  }

  /**
   * A producer transaction binds its rows without a type lookup or a {@code Calendar}: the outbox
   * row's (empty) headers as a Java array. {@code createArrayOf} for them was ~8 % of Once's CPU
   * per producer transaction in the JVM.
   */
  @Test
  void aProducerTransactionBindsWithoutTypeLookups() throws Exception {
    try (TestDatabase db = TestDatabase.embedded()) {
      db.execute("CREATE TABLE producer_orders (order_id bigint PRIMARY KEY)");
      Counter counter = new Counter(db.dataSource());
      once(counter, 1_000, false, 0);
      assertThat(counter.executions.get()).as("statements counted").isPositive();
      assertThat(counter.conversions.get())
          .as("createArrayOf, setArray and setTimestamp calls")
          .isZero();
    }
  }

  /**
   * A process that runs a relay wakes it directly and notifies nobody: no {@code NOTIFY} per commit
   * (400 a second at 400 orders a second were each a transaction on the pool and a wake-up of every
   * listening backend). Without a relay of its own (producers alone) it tells other processes'
   * relays (the first test; {@code WakeUpAcrossProcessesTest} sees them woken).
   */
  @Test
  void aProcessThatRunsARelaySendsNoNotificationPerCommit() throws Exception {
    try (TestDatabase db = TestDatabase.embedded()) {
      db.execute("CREATE TABLE producer_orders (order_id bigint PRIMARY KEY)");
      Counter counter = new Counter(db.dataSource());
      Set<Thread> before = notifiers();
      try (TableQueueTransport transport = TableQueueTransport.create(counter.dataSource);
          Once once = producer(counter, transport);
          Relay relay = once.newRelay().start()) {
        transport.declare("orders", "shipping"); // a consumer group the rows are published to
        counter.reset();
        placeOrders(once, 0, false, 0);
        await()
            .atMost(Duration.ofSeconds(20))
            .until(() -> db.count("SELECT count(*) FROM once_outbox WHERE sent_at IS NULL") == 0);
      }
      // a notifier's last NOTIFY, had one been asked for, is counted once its thread has ended
      awaitEnded(notifiers(), before);
      assertThat(counter.outboxNotifies.get() + counter.outboxNotifiesApart.get())
          .as("NOTIFY once_outbox sent for %d commits with a relay running here", TRANSACTIONS)
          .isZero();
      Counter alone = new Counter(db.dataSource());
      once(alone, 2_000, false, 0);
      assertThat(alone.outboxNotifies.get() + alone.outboxNotifiesApart.get())
          .as("NOTIFY once_outbox from producers alone")
          .isBetween(1L, (long) TRANSACTIONS);
    }
  }

  @Test
  void oneStatementMoreShowsInTheCount() throws Exception {
    try (TestDatabase db = TestDatabase.embedded()) {
      db.execute("CREATE TABLE producer_orders (order_id bigint PRIMARY KEY)");
      Cost raw = raw(db.dataSource(), 0).per(TRANSACTIONS);
      Cost heavier = once(db.dataSource(), 1_000, true, 0).per(TRANSACTIONS);
      assertThat(heavier.executions()).isEqualTo(raw.executions() + 1);
    }
  }

  /** The raw producer: the business row and an outbox row in one transaction, by hand. */
  private static Cost raw(DataSource ds, long first) throws Exception {
    Counter counter = new Counter(ds);
    for (long id = first; id < first + TRANSACTIONS; id++) {
      try (Connection c = counter.dataSource.getConnection()) {
        c.setAutoCommit(false);
        try (PreparedStatement order =
            c.prepareStatement("INSERT INTO producer_orders (order_id) VALUES (?)")) {
          order.setLong(1, id);
          order.executeUpdate();
        }
        try (PreparedStatement out =
            c.prepareStatement(
                "INSERT INTO once_outbox (event_id, destination, event_key, event_type, payload,"
                    + " key_partition) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (event_id) DO NOTHING")) {
          out.setString(1, "order-paid:" + id);
          out.setString(2, "orders");
          out.setString(3, Long.toString(id));
          out.setString(4, "OrderPaid");
          out.setBytes(5, "{}".getBytes(StandardCharsets.UTF_8));
          out.setInt(6, 0);
          out.executeUpdate();
        }
        c.commit();
      }
    }
    return counter.cost();
  }

  /**
   * Once's producer: {@code tx.update} + {@code tx.publish}; {@code extra}: one UPDATE more; {@code
   * pauseMillis} between two transactions (0: none).
   */
  private static Cost once(DataSource ds, long first, boolean extra, long pauseMillis)
      throws Exception {
    return once(new Counter(ds), first, extra, pauseMillis);
  }

  /**
   * The producer thread's cost as it stood after the last commit; what other threads did (the
   * notifier's) once their threads have ended, so that nothing comes after the count.
   */
  private static Cost once(Counter counter, long first, boolean extra, long pauseMillis)
      throws Exception {
    Set<Thread> before = notifiers();
    Cost mine;
    try (AutoCloseable relayElsewhere = listening(counter.delegate);
        TableQueueTransport transport = TableQueueTransport.create(counter.dataSource);
        Once once = producer(counter, transport)) {
      counter.reset();
      placeOrders(once, first, extra, pauseMillis);
      mine = counter.cost();
      // a notification is carried or sent for the burst (one closed before would send nothing)
      await()
          .atMost(Duration.ofSeconds(20))
          .until(() -> counter.outboxNotifies.get() + counter.outboxNotifiesApart.get() >= 1);
    }
    awaitEnded(notifiers(), before);
    return new Cost(
        mine.connections(),
        mine.executions(),
        mine.commits(),
        counter.otherThreads.get(),
        mine.notifiesCarried(),
        counter.outboxNotifiesApart.get());
  }

  /**
   * A listener of the outbox channel on {@code ds}, as another process's relay holds: producers
   * alone notify only while one listens. Returns once its {@code LISTEN} (and the lock that says
   * so) is in place.
   */
  static AutoCloseable listening(DataSource ds) {
    AutoCloseable subscription =
        Dialects.forDataSource(ds).flavour().listen(ds, Channel.OUTBOX, null, () -> {});
    PostgresListener listener = PostgresListener.runningFor(ds);
    await().atMost(Duration.ofSeconds(20)).until(() -> listener.listens() >= 1);
    return subscription;
  }

  /** The notifier threads alive now ({@code PostgresNotifier}: one per engine that notifies). */
  private static Set<Thread> notifiers() {
    Set<Thread> threads = new HashSet<>(Thread.getAllStackTraces().keySet());
    threads.removeIf(t -> !t.getName().startsWith("once-notify-"));
    return threads;
  }

  /** Waits until the notifier threads of {@code now} not already in {@code before} have ended. */
  private static void awaitEnded(Set<Thread> now, Set<Thread> before) throws InterruptedException {
    for (Thread t : now) {
      if (!before.contains(t)) {
        t.join(Duration.ofSeconds(20).toMillis());
        assertThat(t.isAlive())
            .as("%s still running after its engine closed", t.getName())
            .isFalse();
      }
    }
  }

  /** Once on the counted data source, for destination {@code orders}, with defaults. */
  private static Once producer(Counter counter, TableQueueTransport transport) {
    return Once.builder()
        .dataSource(counter.dataSource)
        .transport(transport)
        .destinations("orders")
        .build();
  }

  /** {@link #TRANSACTIONS} orders from {@code first}: {@code tx.update} + {@code tx.publish}. */
  private static void placeOrders(Once once, long first, boolean extra, long pauseMillis)
      throws InterruptedException {
    for (long id = first; id < first + TRANSACTIONS; id++) {
      if (pauseMillis > 0) {
        Thread.sleep(pauseMillis); // a pace, not a wait for something
      }
      long orderId = id;
      once.useTransaction(
          tx -> {
            tx.update("INSERT INTO producer_orders (order_id) VALUES (?)", orderId);
            if (extra) {
              tx.update("UPDATE producer_orders SET order_id = order_id WHERE false");
            }
            tx.publish(
                Event.of(
                    EventId.of("order-paid", orderId),
                    "orders",
                    Long.toString(orderId),
                    "OrderPaid",
                    "{}"));
          });
    }
  }

  /**
   * Counts, on the thread that made it, the connections taken, the statements run and the commits;
   * on every other thread, the statements run.
   */
  static final class Counter {
    private final Thread owner = Thread.currentThread();
    final AtomicLong connections = new AtomicLong();
    final AtomicLong executions = new AtomicLong();
    final AtomicLong commits = new AtomicLong();
    final AtomicLong otherThreads = new AtomicLong();

    /** {@code pg_notify(once_outbox, …)} bound on the producer's thread (in its transaction). */
    final AtomicLong outboxNotifies = new AtomicLong();

    /** The same on other threads (the notifier's, in a transaction of its own). */
    final AtomicLong outboxNotifiesApart = new AtomicLong();

    /**
     * Calls on this thread that make pgjdbc look an SQL type up or format a time through a {@code
     * Calendar} ({@code createArrayOf}, {@code setArray}, {@code setTimestamp}): CPU in the JVM on
     * every row or batch (docs/PERFORMANCE.md, round 11), where a Java array or an {@code
     * OffsetDateTime} binds without them.
     */
    final AtomicLong conversions = new AtomicLong();

    /**
     * Date-times bound on this thread ({@code setObject} of a {@code java.time} value): pgjdbc
     * builds a TimestampUtils, with a GregorianCalendar, for each statement that binds one.
     */
    final AtomicLong dateTimes = new AtomicLong();

    /** The strings bound on this thread with {@code setString}, each instance once. */
    final Set<String> boundTexts = Collections.newSetFromMap(new IdentityHashMap<>());

    /** Looks for a listener ({@code pg_locks}), on any thread: not counted as statements. */
    final AtomicLong looks = new AtomicLong();

    final DataSource dataSource;
    final DataSource delegate;

    Counter(DataSource delegate) {
      this.delegate = delegate;
      this.dataSource = proxy(DataSource.class, delegate, this::onDataSource);
    }

    void reset() {
      connections.set(0);
      executions.set(0);
      commits.set(0);
      otherThreads.set(0);
      conversions.set(0);
      dateTimes.set(0);
      boundTexts.clear();
      looks.set(0);
      outboxNotifies.set(0);
      outboxNotifiesApart.set(0);
    }

    Cost cost() {
      return new Cost(
          connections.get(),
          executions.get(),
          commits.get(),
          otherThreads.get(),
          outboxNotifies.get(),
          outboxNotifiesApart.get());
    }

    interface Call {
      Object on(Object target, Method m, Object[] args) throws Throwable;
    }

    private boolean mine() {
      return Thread.currentThread() == owner;
    }

    private Object onDataSource(Object target, Method m, Object[] args) throws Throwable {
      Object result = call(target, m, args);
      if (result instanceof Connection c) {
        if (mine()) {
          connections.incrementAndGet();
        }
        return proxy(Connection.class, c, this::onConnection);
      }
      return result;
    }

    private Object onConnection(Object target, Method m, Object[] args) throws Throwable {
      if (m.getName().equals("commit") && mine() && inTransaction((Connection) target)) {
        commits.incrementAndGet();
      }
      if (m.getName().equals("createArrayOf") && mine()) {
        conversions.incrementAndGet();
      }
      Object result = call(target, m, args);
      if (result instanceof PreparedStatement ps) {
        if (String.valueOf(args[0]).contains("pg_notify")) {
          return proxy(PreparedStatement.class, ps, this::onOutboxNotify);
        }
        return proxy(PreparedStatement.class, ps, this::onStatement);
      }
      if (result instanceof Statement s) {
        return proxy(Statement.class, s, this::onStatement);
      }
      return result;
    }

    /**
     * Whether the server holds a transaction open on {@code c}: a {@code commit()} when it does not
     * (a statement ended it) sends nothing, and pgjdbc knows it from the server's last answer.
     */
    private static boolean inTransaction(Connection c) throws SQLException {
      return !c.isWrapperFor(BaseConnection.class)
          || c.unwrap(BaseConnection.class).getTransactionState() != TransactionState.IDLE;
    }

    /** A {@code pg_notify} statement: counted as any other, and as a notification of the outbox. */
    private Object onOutboxNotify(Object target, Method m, Object[] args) throws Throwable {
      if (m.getName().startsWith("set")
          && args != null
          && args.length > 1
          && args[1] instanceof String channel
          && channel.equals("once_outbox")) {
        (mine() ? outboxNotifies : outboxNotifiesApart).incrementAndGet();
      }
      return onStatement(target, m, args);
    }

    private Object onStatement(Object target, Method m, Object[] args) throws Throwable {
      if (m.getName().startsWith("execute")
          && args != null
          && args.length > 0
          && String.valueOf(args[0]).contains("pg_locks")) {
        looks.incrementAndGet();
      } else if (m.getName().startsWith("execute")) {
        (mine() ? executions : otherThreads).incrementAndGet();
      }
      if ((m.getName().equals("setArray") || m.getName().equals("setTimestamp")) && mine()) {
        conversions.incrementAndGet();
      }
      if (m.getName().equals("setObject")
          && args[1] instanceof java.time.temporal.Temporal
          && mine()) {
        dateTimes.incrementAndGet();
      }
      if (m.getName().equals("setString") && args[1] instanceof String text && mine()) {
        boundTexts.add(text);
      }
      return call(target, m, args);
    }
  }

  private static <T> T proxy(Class<T> type, T target, Counter.Call call) {
    InvocationHandler h =
        (p, m, args) ->
            m.getName().equals("unwrap") && ((Class<?>) args[0]).isInstance(p)
                ? p // as the JDBC Wrapper contract asks: no way around the count
                : call.on(target, m, args);
    return type.cast(Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type}, h));
  }

  private static Object call(Object target, Method m, Object[] args) throws Throwable {
    try {
      return m.invoke(target, args);
    } catch (InvocationTargetException e) {
      throw e.getCause();
    }
  }
}
