package dev.once;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariDataSource;
import dev.once.spi.ForwardingDataSource;
import dev.once.tablequeue.TableQueueTransport;
import dev.once.test.TestDatabase;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The README's first program (a consumer of 2 workers and a relay on the table queue, all on one
 * pool) on pools of every size: one that cannot serve them is refused at {@code start()}, naming
 * what is needed, the pool's size and its setting, instead of starving for a minute and blaming the
 * database; the smallest one it accepts delivers.
 */
class PoolSizeAtStartTest {
  /**
   * The relay's second connection and one to make progress; the LISTEN (one for the outbox and the
   * table queue) holds a session of its own, outside the pool.
   */
  private static final int AT_LEAST = 2;

  /** 2 workers, the relay's 2, the NOTIFY sender and a producer. */
  private static final int ALL_AT_ONCE = 6;

  /**
   * A relay and a table-queue consumer on one pool share one connection for their wake-ups from
   * other processes: one {@code LISTEN} per process, not one per engine (with one per channel the
   * same program held two connections for good), on a session of its own: none of the pool's
   * connections carried it.
   */
  @Test
  void theOutboxAndTheTableQueueListenOnOneConnection() {
    try (TestDatabase db = TestDatabase.embedded();
        HikariDataSource pool = db.newPool(ALL_AT_ONCE)) {
      java.util.concurrent.atomic.AtomicInteger listens =
          new java.util.concurrent.atomic.AtomicInteger();
      DataSource counted = new ListenCounting(pool, listens);
      db.execute("CREATE TABLE shipments (order_id text)");
      Set<Thread> listenersBefore = listenerThreads();
      try (TableQueueTransport transport = TableQueueTransport.create(counted);
          Once once =
              Once.builder()
                  .dataSource(counted)
                  .transport(transport)
                  .destinations("orders")
                  .build()) {
        once.consumer("shipping")
            .subscribe(
                "orders", (tx, e) -> tx.update("INSERT INTO shipments VALUES (?)", e.payloadText()))
            .build()
            .start();
        once.newRelay().start();
        once.inTransaction(
            tx ->
                tx.publish(
                    Event.of(EventId.of("order-placed", "A"), "orders", "A", "Placed", "A")));
        await()
            .atMost(Duration.ofSeconds(20))
            .until(() -> db.count("SELECT count(*) FROM shipments"), n -> n == 1);
        // both engines subscribed before the event went through: every listener they started
        // is running now, and the one there is LISTENs once
        Set<Thread> started = listenerThreads();
        started.removeAll(listenersBefore);
        assertThat(started).as("listener threads the relay and the consumer started").hasSize(1);
        dev.once.internal.postgres.PostgresListener listener =
            dev.once.internal.postgres.PostgresListener.runningFor(counted);
        await().atMost(Duration.ofSeconds(5)).until(() -> listener.listens() >= 1);
        assertThat(listener.listens()).as("LISTEN statements").isEqualTo(1);
        assertThat(listens).as("LISTEN statements on the pool's connections").hasValue(0);
      }
    }
  }

  /** The threads of the wake-up listeners alive in this JVM ({@code PostgresListener}). */
  private static Set<Thread> listenerThreads() {
    Set<Thread> threads = new HashSet<>(Thread.getAllStackTraces().keySet());
    threads.removeIf(t -> !t.getName().equals("once-listen"));
    return threads;
  }

  /** Counts the statements that start with {@code LISTEN} on its connections. */
  private static final class ListenCounting extends ForwardingDataSource {
    private final java.util.concurrent.atomic.AtomicInteger listens;

    ListenCounting(DataSource delegate, java.util.concurrent.atomic.AtomicInteger listens) {
      super(delegate);
      this.listens = listens;
    }

    @Override
    public java.sql.Connection getConnection() throws java.sql.SQLException {
      java.sql.Connection c = super.getConnection();
      return (java.sql.Connection)
          java.lang.reflect.Proxy.newProxyInstance(
              getClass().getClassLoader(),
              new Class<?>[] {java.sql.Connection.class},
              (p, m, args) -> {
                Object r = call(c, m, args);
                if (r instanceof java.sql.Statement st
                    && !(r instanceof java.sql.PreparedStatement)) {
                  return java.lang.reflect.Proxy.newProxyInstance(
                      getClass().getClassLoader(),
                      new Class<?>[] {java.sql.Statement.class},
                      (p2, m2, args2) -> {
                        if (m2.getName().startsWith("execute")
                            && String.valueOf(args2[0]).startsWith("LISTEN")) {
                          listens.incrementAndGet();
                        }
                        return call(st, m2, args2);
                      });
                }
                return r;
              });
    }

    private static Object call(Object target, java.lang.reflect.Method m, Object[] args)
        throws Throwable {
      try {
        return m.invoke(target, args);
      } catch (java.lang.reflect.InvocationTargetException e) {
        throw e.getCause();
      }
    }
  }

  @ParameterizedTest
  @ValueSource(ints = {AT_LEAST - 1})
  void aPoolTooSmallForTheEnginesIsRefusedAtStart(int size) {
    try (TestDatabase db = TestDatabase.embedded();
        HikariDataSource pool = db.newPool(size)) {
      assertRefused(db, pool, pool.getPoolName(), size);
    }
  }

  @Test
  void aPoolUnderAWrapperIsReadThroughUnwrap() {
    try (TestDatabase db = TestDatabase.embedded();
        HikariDataSource pool = db.newPool(AT_LEAST - 1)) {
      DataSource wrapped = new ForwardingDataSource(pool) {};
      assertRefused(db, wrapped, pool.getPoolName(), AT_LEAST - 1);
    }
  }

  /**
   * An ordered consumer on a broker runs one more thread than its workers: its key lane's worker
   * (docs/ORDERING.md, "Ordered on a broker"), counted in what the pool must serve at once. Here
   * the broker is the table queue with its in-database acknowledgement hidden, which is what makes
   * a consumer keep a lane.
   */
  @Test
  void anOrderedConsumerOnABrokerCountsItsKeyLanesWorker() {
    try (TestDatabase db = TestDatabase.embedded();
        HikariDataSource pool = db.newPool(AT_LEAST - 1)) {
      String unordered = refusal(pool, false);
      String ordered = refusal(pool, true);

      assertThat(ordered).contains("consumer shipping (2 workers and its key lane's)");
      assertThat(allAtOnce(ordered)).isEqualTo(allAtOnce(unordered) + 1);
    }
  }

  /** The refusal of a relay started beside a consumer of 2 workers on a broker-like transport. */
  private static String refusal(DataSource ds, boolean ordered) {
    try (TableQueueTransport tables = TableQueueTransport.create(ds);
        Once once =
            Once.builder()
                .dataSource(ds)
                .transport(new Broker(tables))
                .destinations("orders")
                .build()) {
      ConsumerBuilder consumer = once.consumer("shipping").subscribe("orders", (tx, e) -> {});
      (ordered ? consumer.ordered() : consumer).build().start();
      return org.assertj.core.api.Assertions.catchThrowableOfType(
              ConfigurationException.class, () -> once.newRelay().start())
          .getMessage();
    }
  }

  private static int allAtOnce(String refusal) {
    java.util.regex.Matcher m =
        java.util.regex.Pattern.compile("and (\\d+) to run them all at once").matcher(refusal);
    assertThat(m.find()).as(refusal).isTrue();
    return Integer.parseInt(m.group(1));
  }

  /** The table queue as a broker: without its acknowledgement in the consumer's transaction. */
  private static final class Broker extends dev.once.spi.ForwardingTransport {
    Broker(dev.once.spi.Transport tables) {
      super(tables);
    }

    @Override
    public <C> java.util.Optional<C> capability(Class<C> type) {
      return type == dev.once.spi.InDatabaseAck.class
          ? java.util.Optional.empty()
          : super.capability(type);
    }
  }

  private static void assertRefused(TestDatabase db, DataSource ds, String name, int size) {
    try (TableQueueTransport transport = TableQueueTransport.create(ds);
        Once once =
            Once.builder().dataSource(ds).transport(transport).destinations("orders").build()) {
      once.consumer("shipping").subscribe("orders", (tx, e) -> {}).build().start();
      long start = System.nanoTime();

      assertThatThrownBy(() -> once.newRelay().start())
          .isInstanceOf(ConfigurationException.class)
          .hasMessageContaining("pool '" + name + "' of " + size + " connections")
          .hasMessageContaining("Once needs at least " + AT_LEAST)
          .hasMessageContaining("and " + ALL_AT_ONCE + " to run them all at once")
          .hasMessageContaining("set the pool's maximumPoolSize to " + ALL_AT_ONCE)
          .hasMessageContaining("consumer shipping (2 workers)");
      assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
    }
  }

  @ParameterizedTest
  @ValueSource(ints = {AT_LEAST, ALL_AT_ONCE})
  void theSmallestPoolAcceptedDelivers(int size) {
    try (TestDatabase db = TestDatabase.embedded();
        HikariDataSource pool = db.newPool(size);
        TableQueueTransport transport = TableQueueTransport.create(pool);
        Once once =
            Once.builder().dataSource(pool).transport(transport).destinations("orders").build()) {
      db.execute("CREATE TABLE shipments (order_id text)");
      once.consumer("shipping")
          .subscribe(
              "orders", (tx, e) -> tx.update("INSERT INTO shipments VALUES (?)", e.payloadText()))
          .build()
          .start();
      once.newRelay().start();

      for (int i = 0; i < 20; i++) {
        String order = "A-" + i;
        once.inTransaction(
            tx ->
                tx.publish(
                    Event.of(EventId.of("order-placed", order), "orders", order, "Placed", order)));
      }

      await()
          .atMost(Duration.ofSeconds(20))
          .until(() -> db.count("SELECT count(*) FROM shipments"), n -> n == 20);
    }
  }
}
