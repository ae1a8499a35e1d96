package dev.once;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.once.tablequeue.TableQueueTransport;
import dev.once.test.TestDatabase;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * The engine's own transactions (a relay's batch, the table queue's copies and claims) give their
 * connections back to a HikariCP pool as they found them, auto-commit on and the network timeout
 * put back, as producer and consumer transactions do: the pool has nothing to reset. Before, every
 * relay batch and every claim left both for the pool to reset, and HikariCP logged each reset at
 * DEBUG: 917 lines for 5 000 orders on RabbitMQ, 2 169 on the table queue, where logging is left at
 * its default. Counted on the driver's connections: the calls HikariCP's reset makes.
 */
class EngineConnectionsGivenBackTest {
  static final int EVENTS = 40;

  @Test
  void aRelayAndATableQueueConsumerLeaveThePoolNothingToReset() throws Exception {
    TestDatabase db = TestDatabase.embedded();
    db.execute("CREATE TABLE given_back_effects (event_id text PRIMARY KEY)");
    Map<String, AtomicInteger> resets = new ConcurrentHashMap<>();
    HikariConfig cfg = new HikariConfig();
    cfg.setDataSource(countingResets(db.dataSource(), resets));
    cfg.setMaximumPoolSize(8);
    try (HikariDataSource pool = new HikariDataSource(cfg);
        TableQueueTransport queue = TableQueueTransport.create(pool);
        Once once =
            Once.builder().dataSource(pool).transport(queue).destinations("orders").build()) {
      once.consumer("given-back")
          .subscribe(
              "orders",
              (tx, e) -> tx.update("INSERT INTO given_back_effects VALUES (?)", e.id().value()))
          .workers(2)
          .build()
          .start();
      once.newRelay().start();
      for (int i = 0; i < EVENTS; i++) {
        long id = i;
        once.useTransaction(
            tx ->
                tx.publish(Event.of(EventId.of("order", id), "orders", "k" + id, "Ordered", "{}")));
      }
      await()
          .atMost(Duration.ofSeconds(60))
          .until(() -> db.count("SELECT count(*) FROM given_back_effects") == EVENTS);
      assertThat(resets)
          .as("HikariCP's resets of a relay's and a consumer's connections, by thread")
          .doesNotContainKeys("once-relay", "once-given-back");
      assertThat(db.count("SELECT count(*) FROM given_back_effects")).isEqualTo(EVENTS);
    }
  }

  /**
   * {@code delegate} whose connections count, per thread name (a worker's number cut off), the
   * auto-commit and network-timeout changes made by HikariCP's reset of a returned connection.
   */
  private static DataSource countingResets(DataSource delegate, Map<String, AtomicInteger> resets) {
    return (DataSource)
        Proxy.newProxyInstance(
            DataSource.class.getClassLoader(),
            new Class<?>[] {DataSource.class},
            (p, m, args) -> {
              Object r = invoke(m, delegate, args);
              return r instanceof Connection c ? counted(c, resets) : r;
            });
  }

  private static Connection counted(Connection c, Map<String, AtomicInteger> resets) {
    return (Connection)
        Proxy.newProxyInstance(
            Connection.class.getClassLoader(),
            new Class<?>[] {Connection.class},
            (p, m, args) -> {
              if ((m.getName().equals("setAutoCommit") || m.getName().equals("setNetworkTimeout"))
                  && byPoolReset()) {
                String thread = Thread.currentThread().getName().replaceAll("-\\d+$", "");
                resets.computeIfAbsent(thread, t -> new AtomicInteger()).incrementAndGet();
              }
              return invoke(m, c, args);
            });
  }

  private static boolean byPoolReset() {
    return StackWalker.getInstance()
        .walk(
            frames ->
                frames.anyMatch(
                    f ->
                        f.getClassName().equals("com.zaxxer.hikari.pool.PoolBase")
                            && f.getMethodName().equals("resetConnectionState")));
  }

  private static Object invoke(java.lang.reflect.Method m, Object target, Object[] args)
      throws Throwable {
    try {
      return m.invoke(target, args);
    } catch (java.lang.reflect.InvocationTargetException e) {
      throw e.getCause();
    }
  }
}
