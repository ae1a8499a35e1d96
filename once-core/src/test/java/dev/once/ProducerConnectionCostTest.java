package dev.once;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.once.tablequeue.TableQueueTransport;
import dev.once.test.TestDatabase;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * What a producer transaction asks of its pooled connection in the JVM, counted on the driver's
 * connection under a HikariCP pool: the calls Once makes, and those the pool makes to reset what
 * Once left changed when the connection comes back.
 *
 * <p>Once switched auto-commit off and set the network timeout on every borrowed connection and
 * left both for HikariCP to reset at the return, which it does with a DEBUG line per return ("Reset
 * (autoCommit, netTimeout)"): with logging at its default, a formatted console line per producer
 * transaction, under the appender's lock shared by every producer thread. It also read the network
 * timeout twice per transaction (once at the borrow, once more as the transaction began).
 */
class ProducerConnectionCostTest {
  static final int TRANSACTIONS = 20;

  @Test
  void aProducerTransactionPutsItsConnectionBackAsItFoundItSoThePoolResetsNothing()
      throws Exception {
    Calls calls = new Calls();
    try (TestDatabase db = TestDatabase.embedded();
        HikariDataSource pool = pool(calls.counting(db.dataSource()));
        TableQueueTransport transport = TableQueueTransport.create(db.dataSource());
        Once once =
            Once.builder().dataSource(pool).transport(transport).destinations("orders").build()) {
      db.execute("CREATE TABLE conn_orders (order_id bigint PRIMARY KEY)");
      order(once, 0); // the pool's first use of the connection sets it up: not counted
      calls.from(Thread.currentThread());
      for (int i = 1; i <= TRANSACTIONS; i++) {
        order(once, i);
      }
      calls.from(null);

      assertThat(calls.resets.get())
          .as("calls HikariCP made to reset %d returned connections", TRANSACTIONS)
          .isZero();
      assertThat(calls.perTransaction())
          .as("calls on the driver's connection per producer transaction")
          .containsEntry("getNetworkTimeout", 1.0)
          .containsEntry("setNetworkTimeout", 2.0) // set, put back
          .containsEntry("setAutoCommit", 2.0) // off, back on
          .containsEntry("commit", 1.0)
          .doesNotContainKey("rollback");
      assertThat(calls.perTransaction().getOrDefault("prepareStatement", 0.0))
          .as(
              "statements prepared per producer transaction: those of the first are held on the"
                  + " connection (before: 2); a row that carries the outbox's notification prepares"
                  + " its own")
          .isLessThan(0.5);
      assertThat(pool.getConnection())
          .satisfies(
              c -> {
                try (c) {
                  assertThat(c.getAutoCommit()).isTrue();
                  assertThat(c.getNetworkTimeout()).isZero();
                }
              });
    }
  }

  /**
   * Every value of a producer transaction is bound with its typed setter, as raw JDBC binds it:
   * through {@code setObject} each went through pgjdbc's type switch, the largest method the
   * transaction reached in the driver (~190 ms of C2 compilation in a short run).
   */
  @Test
  void aProducerTransactionBindsEveryValueWithItsTypedSetter() throws Exception {
    Calls calls = new Calls();
    try (TestDatabase db = TestDatabase.embedded();
        HikariDataSource pool = pool(calls.counting(db.dataSource()));
        TableQueueTransport transport = TableQueueTransport.create(db.dataSource());
        Once once =
            Once.builder().dataSource(pool).transport(transport).destinations("orders").build()) {
      db.execute("CREATE TABLE conn_orders (order_id bigint PRIMARY KEY)");
      order(once, 0);
      calls.from(Thread.currentThread());
      for (int i = 1; i <= TRANSACTIONS; i++) {
        order(once, i);
      }
      calls.from(null);

      // a transaction may carry the outbox's notification (PostgresNotifier.claim, timed): its
      // channel and sender are two strings more, its row is bound as every other
      Map<String, Double> perTransaction = calls.perTransaction();
      assertThat(perTransaction)
          .as("setters called per producer transaction (a business row and an outbox row)")
          .doesNotContainKey("setObject")
          .containsEntry("setLong", 1.0) // the order's id
          .containsEntry("setBytes", 1.0) // payload
          .containsEntry("setInt", 1.0); // partition
      assertThat(perTransaction.get("setString"))
          .as("event id, destination, key, type; a notification's channel and sender")
          .isBetween(4.0, 6.0);
    }
  }

  /**
   * The outbox row of a transaction that carries the outbox's notification is bound as any other:
   * without headers, with typed setters. Which transaction carries it is a matter of time ({@code
   * PostgresNotifier.claim}), so the test above may not meet one; this one calls the store's
   * notifying insert itself. Before, it bound the row with its headers, an empty array through
   * {@code setObject}.
   */
  @Test
  void theOutboxRowThatCarriesTheNotificationBindsNoObject() throws Exception {
    Calls calls = new Calls();
    try (TestDatabase db = TestDatabase.embedded();
        Connection c = calls.counting(db.dataSource()).getConnection()) {
      c.setAutoCommit(false);
      calls.from(Thread.currentThread());
      boolean written =
          new dev.once.internal.postgres.PostgresStore()
              .insertOutboxNotifying(
                  c,
                  Event.of(EventId.of("order", 1), "orders", "k1", "Ordered", "{}"),
                  0,
                  dev.once.jdbc.Channel.OUTBOX,
                  "sender");
      calls.from(null);
      c.commit();
      assertThat(written).isTrue();
      assertThat(calls.perTransaction())
          .as("setters of the notifying outbox row, per %d", TRANSACTIONS)
          .doesNotContainKey("setObject")
          .containsEntry("setString", 6.0 / TRANSACTIONS) // 4 of the row, channel, sender
          .containsEntry("setBytes", 1.0 / TRANSACTIONS)
          .containsEntry("setInt", 1.0 / TRANSACTIONS);
    }
  }

  private static void order(Once once, long id) {
    once.useTransaction(
        tx -> {
          tx.update("INSERT INTO conn_orders (order_id) VALUES (?)", id);
          tx.publish(Event.of(EventId.of("order", id), "orders", "k" + id, "Ordered", "{}"));
        });
  }

  private static HikariDataSource pool(DataSource dataSource) {
    HikariConfig cfg = new HikariConfig();
    cfg.setDataSource(dataSource);
    cfg.setMaximumPoolSize(2);
    return new HikariDataSource(cfg);
  }

  /** Counts the calls on the connections of a data source, made by one thread. */
  private static final class Calls {
    private final Map<String, AtomicLong> byMethod = new ConcurrentHashMap<>();
    private final AtomicLong resets = new AtomicLong();
    private volatile Thread counted;

    void from(Thread thread) {
      counted = thread;
    }

    Map<String, Double> perTransaction() {
      Map<String, Double> per = new TreeMap<>();
      byMethod.forEach((m, n) -> per.put(m, n.get() / (double) TRANSACTIONS));
      return per;
    }

    DataSource counting(DataSource dataSource) {
      return proxy(
          DataSource.class,
          dataSource,
          result ->
              result instanceof Connection c
                  ? proxy(
                      Connection.class,
                      c,
                      r ->
                          r instanceof PreparedStatement ps
                              ? proxy(PreparedStatement.class, ps, x -> x, this::count)
                              : r,
                      this::count)
                  : result,
          m -> {});
    }

    private void count(Method method) {
      if (Thread.currentThread() != counted) {
        return;
      }
      byMethod.computeIfAbsent(method.getName(), n -> new AtomicLong()).incrementAndGet();
      if (StackWalker.getInstance()
          .walk(s -> s.anyMatch(f -> f.getMethodName().equals("resetConnectionState")))) {
        resets.incrementAndGet();
      }
    }

    private static <T> T proxy(
        Class<T> type,
        T target,
        java.util.function.UnaryOperator<Object> wrap,
        java.util.function.Consumer<Method> seen) {
      return type.cast(
          Proxy.newProxyInstance(
              ProducerConnectionCostTest.class.getClassLoader(),
              new Class<?>[] {type},
              (p, method, args) -> {
                seen.accept(method);
                try {
                  return wrap.apply(method.invoke(target, args));
                } catch (InvocationTargetException e) {
                  throw e.getCause();
                }
              }));
    }
  }
}
