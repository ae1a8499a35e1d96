package dev.once;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.once.tablequeue.TableQueueTransport;
import dev.once.test.TestDatabase;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * A producer transaction on a pool finds its statements prepared on the driver's connection, as a
 * hand-written producer holds its two for a whole run, instead of preparing and closing both on
 * every borrowed connection (HeldStatements). Counted on the driver's connections under a HikariCP
 * pool of one: before, {@value #TRANSACTIONS} transactions prepared {@code 2 ×} {@value
 * #TRANSACTIONS} statements there.
 */
class HeldProducerStatementsTest {
  static final int TRANSACTIONS = 20;
  static final String ORDER = "INSERT INTO held_orders (order_id) VALUES (?)";

  @Test
  void aPooledProducerPreparesItsTwoStatementsOnceForItsConnection() throws Exception {
    try (Rig rig = new Rig()) {
      rig.orders(0, TRANSACTIONS);
      assertThat(rig.prepared("held_orders")).as("the business row's statement").isEqualTo(1);
      assertThat(rig.prepared("INSERT INTO once_outbox"))
          .as(
              "the outbox row's (none if every row carried the outbox's notification: that row's"
                  + " statement is prepared for its use, one notification per 2 ms)")
          .isLessThanOrEqualTo(1);
      assertThat(rig.db.count("SELECT count(*) FROM once_outbox")).isEqualTo(TRANSACTIONS);
    }
  }

  @Test
  void aFailingUserStatementDropsTheConnectionsStatementsAndTheNextTransactionPreparesAgain()
      throws Exception {
    try (Rig rig = new Rig()) {
      rig.orders(0, 3);
      assertThatThrownBy(() -> rig.order(1)).isInstanceOf(StoreException.class); // duplicate key
      assertThat(rig.open()).as("statements left open after the failure").isZero();
      rig.orders(3, 6);
      assertThat(rig.prepared("held_orders"))
          .as("once, and once more after the failure")
          .isEqualTo(2);
      assertThat(rig.db.count("SELECT count(*) FROM held_orders")).isEqualTo(6);
      assertThat(rig.db.count("SELECT count(*) FROM once_outbox")).isEqualTo(6);
    }
  }

  @Test
  void aRolledBackTransactionLeavesNoRowAndTheHeldStatementsServeTheNext() throws Exception {
    try (Rig rig = new Rig()) {
      rig.orders(0, 2);
      assertThatThrownBy(
              () ->
                  rig.once.useTransaction(
                      tx -> {
                        rig.write(tx, 7);
                        throw new IllegalStateException("the caller changes its mind");
                      }))
          .isInstanceOf(IllegalStateException.class);
      rig.orders(2, 4);
      assertThat(rig.db.count("SELECT count(*) FROM held_orders WHERE order_id = 7")).isZero();
      assertThat(rig.db.count("SELECT count(*) FROM once_outbox")).isEqualTo(4);
      assertThat(rig.prepared("held_orders")).isEqualTo(1);
    }
  }

  @Test
  void aConnectionThePoolEvictsIsLetGoAndItsSuccessorPreparesItsOwn() throws Exception {
    try (Rig rig = new Rig()) {
      rig.orders(0, 3);
      rig.pool.getHikariPoolMXBean().softEvictConnections(); // idle: closed now
      rig.orders(3, 6);
      assertThat(rig.drivers.size()).as("driver connections the producer used").isEqualTo(2);
      assertThat(rig.prepared("held_orders")).as("once per driver connection").isEqualTo(2);
      assertThat(rig.db.count("SELECT count(*) FROM once_outbox")).isEqualTo(6);
    }
  }

  @Test
  void closingOnceClosesEveryStatementItHeld() throws Exception {
    try (Rig rig = new Rig()) {
      rig.orders(0, 3);
      assertThat(rig.open())
          .as("held between transactions: the business row's, the outbox row's unless each carried")
          .isBetween(1, 2);
      rig.once.close();
      assertThat(rig.open()).isZero();
    }
  }

  /**
   * A producer that writes its values into its statement texts (each text new) holds no more than
   * {@code HeldStatements.MOST} of them per connection: the rest are prepared and closed per use.
   */
  @Test
  void statementTextsBuiltByHandAreHeldUpToABound() throws Exception {
    try (Rig rig = new Rig()) {
      int texts = 40;
      for (int i = 0; i < texts; i++) {
        long id = i;
        rig.once.useTransaction(
            tx -> {
              tx.update("INSERT INTO held_orders (order_id) VALUES (" + id + ")");
              tx.publish(Event.of(EventId.of("order", id), "orders", "k" + id, "Ordered", "{}"));
            });
      }
      assertThat(rig.db.count("SELECT count(*) FROM held_orders")).isEqualTo(texts);
      assertThat(rig.db.count("SELECT count(*) FROM once_outbox")).isEqualTo(texts);
      assertThat(rig.open())
          .as("statements held between transactions: at most 16 texts on the one connection")
          .isLessThanOrEqualTo(16);
    }
  }

  /**
   * A wrapper above the pool whose unwrap passes through to it (as a tracing or logging layer's
   * may) sees every statement: nothing is run below it on the driver's connection.
   */
  @Test
  void aWrapperAboveThePoolSeesEveryStatement() throws Exception {
    try (Rig rig = new Rig(true)) {
      rig.orders(0, TRANSACTIONS);
      assertThat(rig.above.get())
          .as("business statements prepared through the wrapper above the pool")
          .isEqualTo(TRANSACTIONS);
      assertThat(rig.db.count("SELECT count(*) FROM once_outbox")).isEqualTo(TRANSACTIONS);
    }
  }

  /**
   * A HikariCP pool of one over a data source that counts the statements prepared on its (the
   * driver's) connections by text, and those still open.
   */
  private static final class Rig implements AutoCloseable {
    final TestDatabase db = TestDatabase.embedded();
    final Set<Connection> drivers = ConcurrentHashMap.newKeySet();
    final ConcurrentHashMap<String, AtomicInteger> prepares = new ConcurrentHashMap<>();
    final AtomicInteger opened = new AtomicInteger();
    final AtomicInteger closed = new AtomicInteger();
    final AtomicInteger above = new AtomicInteger();
    final HikariDataSource pool;
    final TableQueueTransport transport;
    final Once once;

    Rig() {
      this(false);
    }

    /** {@code wrapped}: Once is given the pool under a wrapper whose unwrap passes through. */
    Rig(boolean wrapped) {
      db.execute("CREATE TABLE held_orders (order_id bigint PRIMARY KEY)");
      HikariConfig cfg = new HikariConfig();
      cfg.setDataSource(counting(db.dataSource()));
      cfg.setMaximumPoolSize(1);
      pool = new HikariDataSource(cfg);
      transport = TableQueueTransport.create(db.dataSource());
      DataSource given = wrapped ? passingThrough(pool) : pool;
      once = Once.builder().dataSource(given).transport(transport).destinations("orders").build();
    }

    void orders(int from, int to) {
      for (int i = from; i < to; i++) {
        order(i);
      }
    }

    void order(long id) {
      once.useTransaction(tx -> write(tx, id));
    }

    void write(Tx tx, long id) {
      tx.update(ORDER, id);
      tx.publish(Event.of(EventId.of("order", id), "orders", "k" + id, "Ordered", "{}"));
    }

    int prepared(String containing) {
      return prepares.entrySet().stream()
          .filter(e -> e.getKey().contains(containing) && !e.getKey().contains("pg_notify"))
          .mapToInt(e -> e.getValue().get())
          .sum();
    }

    int open() {
      return opened.get() - closed.get();
    }

    /**
     * Counts the business statements prepared through it; unwrap goes to the connection under it.
     */
    private DataSource passingThrough(DataSource delegate) {
      return proxy(
          DataSource.class, delegate, (m, args, r) -> r instanceof Connection c ? through(c) : r);
    }

    private Connection through(Connection c) {
      return (Connection)
          Proxy.newProxyInstance(
              Connection.class.getClassLoader(),
              new Class<?>[] {Connection.class},
              (p, m, args) -> {
                if (m.getName().equals("prepareStatement")
                    && ((String) args[0]).contains("held_orders")) {
                  above.incrementAndGet();
                }
                try {
                  return m.invoke(c, args);
                } catch (InvocationTargetException e) {
                  throw e.getCause();
                }
              });
    }

    private DataSource counting(DataSource delegate) {
      return proxy(
          DataSource.class,
          delegate,
          (m, args, r) -> r instanceof Connection c ? connection(c) : r);
    }

    private Connection connection(Connection c) {
      Connection counted =
          proxy(
              Connection.class,
              c,
              (m, args, r) -> {
                if (m.getName().equals("prepareStatement") && r instanceof PreparedStatement ps) {
                  prepares
                      .computeIfAbsent((String) args[0], k -> new AtomicInteger())
                      .incrementAndGet();
                  opened.incrementAndGet();
                  return proxy(
                      PreparedStatement.class,
                      ps,
                      (sm, sargs, sr) -> {
                        if (sm.getName().equals("close")) {
                          closed.incrementAndGet();
                        }
                        return sr;
                      });
                }
                return r;
              });
      drivers.add(counted);
      return counted;
    }

    @Override
    public void close() {
      once.close();
      transport.close();
      pool.close();
      db.close();
    }
  }

  private interface After {
    Object of(java.lang.reflect.Method m, Object[] args, Object result) throws Exception;
  }

  /** A proxy that unwraps to itself, as the JDBC Wrapper contract asks of a wrapper. */
  private static <T> T proxy(Class<T> type, T target, After after) {
    InvocationHandler h =
        (p, m, args) -> {
          if (m.getName().equals("unwrap") && ((Class<?>) args[0]).isInstance(p)) {
            return p;
          }
          try {
            return after.of(m, args, m.invoke(target, args));
          } catch (InvocationTargetException e) {
            throw e.getCause();
          }
        };
    return type.cast(Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type}, h));
  }
}
