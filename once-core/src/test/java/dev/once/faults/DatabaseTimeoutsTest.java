package dev.once.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.once.ConfigurationException;
import dev.once.Consumer;
import dev.once.DatabaseTimeouts;
import dev.once.Event;
import dev.once.EventId;
import dev.once.Once;
import dev.once.tablequeue.TableQueueTransport;
import dev.once.test.TestDatabase;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * What {@link DatabaseTimeouts} does to a data source it is given: a network timeout on the
 * connections Once borrows, put back as it was when they are returned; on PostgreSQL the server's
 * lock and idle bounds in Once's consumer batches (one statement per batch, none per event, and
 * none at all where the pool's sessions have them already), never in producers' transactions.
 */
class DatabaseTimeoutsTest {
  private static TestDatabase db;
  private static final AtomicInteger counter = new AtomicInteger();

  @BeforeAll
  static void database() {
    db = TestDatabase.embedded();
  }

  @AfterAll
  static void drop() {
    db.close();
  }

  @Test
  void aBorrowedConnectionWaitsAtMostTheNetworkTimeoutAndIsReturnedAsItWas() throws Exception {
    try (HikariDataSource pool = db.newPool(1)) {
      try (Once once = once(pool, pool, "x")) {
        List<Integer> inside = new CopyOnWriteArrayList<>();
        once.useTransaction(tx -> inside.add(tx.connection().getNetworkTimeout()));
        assertThat(inside).containsExactly(30_000);
      }
      try (Connection c = pool.getConnection()) {
        assertThat(c.getNetworkTimeout()).as("the pool's own, after Once returned it").isZero();
      }
    }
  }

  /**
   * HikariCP puts a connection's network timeout back itself when it is returned: Once hands the
   * pool's own connection to the transaction, not a reflective wrapper that would do it a second
   * time (the wrapper cost ~10 % of a producer transaction's CPU in the JVM).
   */
  @Test
  void aHikariConnectionIsUsedAsItIsItsPoolPutsTheTimeoutBack() throws Exception {
    try (HikariDataSource pool = db.newPool(1)) {
      try (Once once = once(pool, pool, "x")) {
        List<Class<?>> inside = new CopyOnWriteArrayList<>();
        once.useTransaction(tx -> inside.add(tx.connection().getClass()));
        assertThat(inside).hasSize(1);
        assertThat(Proxy.isProxyClass(inside.get(0)))
            .as("the transaction's connection %s", inside.get(0).getName())
            .isFalse();
      }
      try (Connection c = pool.getConnection()) {
        assertThat(c.getNetworkTimeout()).as("the pool's own, after Once returned it").isZero();
      }
    }
  }

  /**
   * A pool that does not put the network timeout back (here: one connection whose close is a no-op)
   * gets it back from Once.
   */
  @Test
  void aConnectionOfAPoolThatKeepsItsTimeoutIsReturnedAsItWas() throws Exception {
    try (HikariDataSource pool = db.newPool(2);
        Connection physical = pool.getConnection().unwrap(Connection.class)) {
      DataSource keeping = oneConnection(pool, physical);
      try (Once once = once(keeping, pool, "x")) {
        List<Integer> inside = new CopyOnWriteArrayList<>();
        once.useTransaction(tx -> inside.add(tx.connection().getNetworkTimeout()));
        assertThat(inside).containsExactly(30_000);
      }
      assertThat(physical.getNetworkTimeout()).as("after Once returned it").isZero();
    }
  }

  @Test
  void aPoolsOwnShorterSocketTimeoutIsKept() throws Exception {
    try (HikariDataSource pool = pool("socketTimeout=5");
        Once once = once(pool, pool, "x")) {
      List<Integer> inside = new CopyOnWriteArrayList<>();
      once.useTransaction(tx -> inside.add(tx.connection().getNetworkTimeout()));
      assertThat(inside).containsExactly(5_000);
    }
  }

  @Test
  void aConsumerBatchWaitsForALockAndForItsClientBoundedAProducerTransactionAsTheSessionHasIt()
      throws Exception {
    String destination = "timeouts-" + counter.incrementAndGet();
    try (HikariDataSource pool = db.newPool(2);
        Once once = once(pool, pool, destination)) {
      Map<String, String> producer = new ConcurrentHashMap<>();
      once.useTransaction(tx -> settings(tx.connection(), producer));
      assertThat(producer)
          .containsEntry("lock_timeout", "0")
          .containsEntry("idle_in_transaction_session_timeout", "0");
      Map<String, String> batch = new ConcurrentHashMap<>();
      Consumer consumer =
          once.consumer("c-" + destination)
              .subscribe(destination, (tx, e) -> settings(tx.connection(), batch))
              .build();
      publish(once, destination, 1);
      consumer.runOnce();
      assertThat(batch)
          .containsEntry("lock_timeout", "10s")
          .containsEntry("idle_in_transaction_session_timeout", "30s");
      consumer.close();
    }
  }

  /**
   * The bounds cost a batch no statement of its own, whether the sessions lack them or the pool's
   * URL sets them: on PostgreSQL they go with the batch's markers, in the same string (one round
   * trip). Before they did, a batch of 32 or of 1 cost one statement more where the sessions lacked
   * them. Whether they are set is {@link
   * #aConsumerBatchWaitsForALockAndForItsClientBoundedAProducerTransactionAsTheSessionHasIt}.
   */
  @Test
  void theBoundsCostABatchNoStatementOfTheirOwn() throws Exception {
    long unbounded = statementsOfOneBatch(db.newPool(2), 32);
    long bounded =
        statementsOfOneBatch(
            pool(
                "options=-c%20lock_timeout%3D10s%20-c%20idle_in_transaction_session_timeout%3D30s"),
            32);
    assertThat(unbounded - bounded).isZero();
    long unboundedOne = statementsOfOneBatch(db.newPool(2), 1);
    long boundedOne =
        statementsOfOneBatch(
            pool(
                "options=-c%20lock_timeout%3D10s%20-c%20idle_in_transaction_session_timeout%3D30s"),
            1);
    assertThat(unboundedOne - boundedOne).isZero();
  }

  @Test
  void aLockWaitNotShorterThanTheNetworkTimeoutIsRefusedNamingIt() {
    assertThatThrownBy(
            () ->
                new DatabaseTimeouts(
                    Duration.ofSeconds(5), Duration.ofSeconds(5), Duration.ofSeconds(30)))
        .isInstanceOf(ConfigurationException.class)
        .hasMessageContaining("databaseTimeouts.lockWait")
        .hasMessageContaining("databaseTimeouts.network");
    assertThatThrownBy(
            () ->
                new DatabaseTimeouts(Duration.ofSeconds(-1), Duration.ZERO, Duration.ofSeconds(30)))
        .isInstanceOf(ConfigurationException.class)
        .hasMessageContaining("databaseTimeouts.network");
  }

  /** Statements the consumer's connections run to handle {@code events} events in one batch. */
  private long statementsOfOneBatch(HikariDataSource pool, int events) throws Exception {
    AtomicLong statements = new AtomicLong();
    AtomicLong counting = new AtomicLong();
    DataSource counted = counting(pool, statements, counting);
    String destination = "timeouts-" + counter.incrementAndGet();
    try (pool;
        Once once = once(counted, pool, destination)) {
      Consumer consumer =
          once.consumer("c-" + destination)
              .subscribe(destination, (tx, e) -> {})
              .batchSize(32)
              .build();
      publish(once, destination, events);
      // only the statements of this thread's batch: the wake-up notifier's NOTIFY after the
      // relay's commit may run at any moment on a thread of its own
      counting.set(Thread.currentThread().getId());
      assertThat(consumer.runOnce()).isEqualTo(events);
      counting.set(0);
      consumer.close();
    }
    return statements.get();
  }

  private static void publish(Once once, String destination, int events) {
    once.useTransaction(
        tx -> {
          for (int i = 0; i < events; i++) {
            tx.publish(
                Event.of(
                    EventId.of("order-paid", destination + "-" + i), destination, "k", "T", "{}"));
          }
        });
    once.newRelay().runOnce();
  }

  /**
   * Once on {@code dataSource} publishing to {@code destination}, its table queue on {@code queue}.
   */
  private static Once once(DataSource dataSource, DataSource queue, String destination) {
    return Once.builder()
        .dataSource(dataSource)
        .transport(TableQueueTransport.builder(queue).build())
        .destinations(destination)
        .build();
  }

  private static HikariDataSource pool(String params) {
    HikariConfig cfg = new HikariConfig();
    cfg.setJdbcUrl(db.jdbcUrl() + "&" + params);
    cfg.setMaximumPoolSize(2);
    return new HikariDataSource(cfg);
  }

  private static void settings(Connection c, Map<String, String> into) throws SQLException {
    for (String name : List.of("lock_timeout", "idle_in_transaction_session_timeout")) {
      try (Statement s = c.createStatement();
          var rs = s.executeQuery("SHOW " + name)) {
        rs.next();
        into.put(name, rs.getString(1));
      }
    }
  }

  /** Counts the statements prepared or created on its connections while {@code on} is 1. */
  private static DataSource counting(DataSource pool, AtomicLong statements, AtomicLong on) {
    return (DataSource)
        Proxy.newProxyInstance(
            DataSource.class.getClassLoader(),
            new Class<?>[] {DataSource.class},
            (proxy, method, args) -> {
              Object result = invoke(pool, method, args);
              if (!(result instanceof Connection c)) {
                return result;
              }
              return Proxy.newProxyInstance(
                  DatabaseTimeoutsTest.class.getClassLoader(),
                  new Class<?>[] {Connection.class},
                  (p, m, a) -> {
                    if (on.get() == Thread.currentThread().getId()
                        && (m.getName().equals("prepareStatement")
                            || m.getName().equals("createStatement"))) {
                      statements.incrementAndGet();
                    }
                    return invoke(c, m, a);
                  });
            });
  }

  /**
   * A data source of one connection, whose close does nothing: a pool that resets nothing ({@code
   * pool} answers everything but {@code getConnection}).
   */
  private static DataSource oneConnection(DataSource pool, Connection c) {
    Connection kept =
        (Connection)
            Proxy.newProxyInstance(
                DatabaseTimeoutsTest.class.getClassLoader(),
                new Class<?>[] {Connection.class},
                (p, m, a) -> m.getName().equals("close") ? null : invoke(c, m, a));
    return (DataSource)
        Proxy.newProxyInstance(
            DataSource.class.getClassLoader(),
            new Class<?>[] {DataSource.class},
            (proxy, method, args) ->
                method.getName().equals("getConnection") ? kept : invoke(pool, method, args));
  }

  private static Object invoke(Object target, java.lang.reflect.Method m, Object[] args)
      throws Throwable {
    try {
      return m.invoke(target, args);
    } catch (java.lang.reflect.InvocationTargetException e) {
      throw e.getCause();
    }
  }
}
