package dev.once;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariDataSource;
import dev.once.tablequeue.TableQueueTransport;
import dev.once.test.PostgresWire;
import dev.once.test.PostgresWire.Cost;
import dev.once.test.TestDatabase;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * What a {@code tx.publish} transaction costs PostgreSQL, read on the wire (a proxy between the
 * pool and the server: {@link PostgresWire}) through a HikariCP pool as a service has, against the
 * same rows by raw JDBC: round trips, statements, commits, notifications — per producer transaction
 * and on every other connection of the process. Both shapes of a producer: no relay in the process
 * (producers alone, e.g. an API with its relays elsewhere) and a relay in it.
 *
 * <p>Producers alone paid a {@code NOTIFY} per 2 ms whether anybody listened or not (carried in
 * their outbox round trip, or sent by the notifier's thread at the end of a burst): each took
 * PostgreSQL's notification lock across its commit's flush. Now they notify only while a listener
 * of the schema listens (a relay, in any process); with none, the notifier looks for one at most
 * once per {@code PostgresNotifier.LOOK_AGAIN}, on its own connection.
 */
class ProducerWireCostTest {
  static final int TRANSACTIONS = 40;
  static final int POOL = 4;

  /**
   * What raw JDBC costs per order: BEGIN with the business INSERT, the outbox INSERT, COMMIT; one
   * value bound for the business row and six for the outbox row (an event without headers: its
   * {@code headers} and {@code trace} are the columns' defaults). Once bound eight, an empty text
   * array and a null trace among them, which pgjdbc encodes per row.
   */
  static final Cost RAW = new Cost(1, 3, 2, 1, 0, 0, 0, 7);

  @Test
  void producersAloneWithNobodyListeningCostWhatRawJdbcCosts() throws Exception {
    try (TestDatabase db = TestDatabase.embedded();
        PostgresWire wire = PostgresWire.to(db, "wire_orders");
        HikariDataSource pool = pool(db, wire);
        TableQueueTransport transport = TableQueueTransport.create(db.dataSource());
        Once once = producer(pool, transport)) {
      db.execute("CREATE TABLE wire_orders (order_id bigint PRIMARY KEY)");
      assertThat(raw(pool, wire).perTransaction()).as("raw JDBC, per order").isEqualTo(RAW);

      long started = System.nanoTime();
      Cost once1 = orders(once, wire, 1_000, true);
      long seconds = Duration.ofNanos(System.nanoTime() - started).toSeconds();
      assertThat(once1)
          .as("Once's producer transactions, %d orders, on the wire", TRANSACTIONS)
          .isEqualTo(times(RAW, TRANSACTIONS));
      Cost other = wire.other();
      assertThat(other.notifies())
          .as("NOTIFYs on other connections with nobody listening")
          .isZero();
      assertThat(other.looks())
          .as("looks for a listener after the first one: one per second at most")
          .isLessThanOrEqualTo(1 + seconds);
      assertThat(other.roundTrips())
          .as("round trips outside the producer transactions: the looks")
          .isEqualTo(other.looks());
    }
  }

  @Test
  void producersBesideARelayInTheProcessCostWhatRawJdbcCostsAndNotifyNobody() throws Exception {
    try (TestDatabase db = TestDatabase.embedded();
        PostgresWire wire = PostgresWire.to(db, "wire_orders");
        HikariDataSource pool = pool(db, wire);
        TableQueueTransport transport = TableQueueTransport.create(db.dataSource());
        Once once = producer(pool, transport);
        Relay relay = once.newRelay().start()) {
      transport.declare("orders", "shipping");
      db.execute("CREATE TABLE wire_orders (order_id bigint PRIMARY KEY)");
      Cost once1 = orders(once, wire, 1_000, false);
      await()
          .atMost(Duration.ofSeconds(20))
          .until(() -> db.count("SELECT count(*) FROM once_outbox WHERE sent_at IS NULL") == 0);

      assertThat(once1)
          .as("Once's producer transactions beside a relay, on the wire")
          .isEqualTo(times(RAW, TRANSACTIONS));
      assertThat(wire.other().notifies())
          .as("NOTIFYs of the relay's and the listener's connections")
          .isZero();
    }
  }

  /**
   * A relay of the schema listens elsewhere (another instance on a pool of its own: another
   * process): producers alone notify it, inside their outbox round trips or from the notifier's
   * thread, and it publishes every row.
   */
  @Test
  void producersAloneNotifyARelayThatListensElsewhere() throws Exception {
    try (TestDatabase db = TestDatabase.embedded();
        PostgresWire wire = PostgresWire.to(db, "wire_orders");
        HikariDataSource pool = pool(db, wire);
        HikariDataSource elsewhere = db.newPool(POOL);
        TableQueueTransport transport = TableQueueTransport.create(db.dataSource());
        Once once = producer(pool, transport);
        Once relaying =
            Once.builder()
                .dataSource(elsewhere)
                .transport(transport)
                .destinations("orders")
                .relayIdleWait(Duration.ofSeconds(60))
                .build();
        Relay relay = relaying.newRelay().start()) {
      transport.declare("orders", "shipping");
      db.execute("CREATE TABLE wire_orders (order_id bigint PRIMARY KEY)");
      await()
          .atMost(Duration.ofSeconds(20))
          .until(() -> db.count("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory'") > 0);
      Cost once1 = orders(once, wire, 1_000, true);
      await()
          .atMost(Duration.ofSeconds(20))
          .until(() -> db.count("SELECT count(*) FROM once_outbox WHERE sent_at IS NULL") == 0);

      assertThat(once1.roundTrips()).as("round trips").isEqualTo(RAW.roundTrips() * TRANSACTIONS);
      assertThat(once1.statements()).isEqualTo(RAW.statements() * TRANSACTIONS);
      assertThat(once1.notifies() + wire.other().notifies())
          .as("NOTIFYs for a relay that listens")
          .isBetween(1L, (long) TRANSACTIONS + 1);
    }
  }

  /**
   * {@link #TRANSACTIONS} orders through {@code tx.publish}, after one that has the notifier (if
   * the producers notify) look for a listener: until it first looks it takes one to listen, and the
   * first commit carries a notification; what their transactions cost.
   */
  private static Cost orders(Once once, PostgresWire wire, long first, boolean notifier) {
    wire.reset();
    order(once, first - 1);
    if (notifier) {
      // The look itself, not the first commit's notification (sent before any look): on a loaded
      // machine the look came after the counted transactions had begun, and one carried a NOTIFY.
      await("the notifier's first look for a listener")
          .atMost(Duration.ofSeconds(20))
          .until(() -> wire.other().looks() >= 1);
      order(once, first - 2); // after the look's answer is stored, not only sent on the wire
    }
    wire.reset();
    for (long id = first; id < first + TRANSACTIONS; id++) {
      order(once, id);
    }
    return wire.marked();
  }

  private static void order(Once once, long orderId) {
    once.useTransaction(
        tx -> {
          tx.update("INSERT INTO wire_orders (order_id) VALUES (?)", orderId);
          tx.publish(
              Event.of(
                  EventId.of("order-paid", orderId),
                  "orders",
                  Long.toString(orderId),
                  "OrderPaid",
                  "{}"));
        });
  }

  /** The same rows by hand, one transaction each; what they cost per order. */
  private static Cost raw(HikariDataSource pool, PostgresWire wire) throws Exception {
    wire.reset();
    for (long id = 0; id < TRANSACTIONS; id++) {
      try (Connection c = pool.getConnection()) {
        c.setAutoCommit(false);
        try (PreparedStatement order =
            c.prepareStatement("INSERT INTO wire_orders (order_id) VALUES (?)")) {
          order.setLong(1, id);
          order.executeUpdate();
        }
        try (PreparedStatement out =
            c.prepareStatement(
                "INSERT INTO once_outbox (event_id, destination, event_key, event_type, payload,"
                    + " key_partition) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (event_id) DO NOTHING")) {
          out.setString(1, "raw:" + id);
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
    assertThat(wire.marked().transactions()).isEqualTo(TRANSACTIONS);
    return wire.marked();
  }

  private static Cost times(Cost c, long n) {
    return new Cost(
        c.transactions() * n,
        c.roundTrips() * n,
        c.statements() * n,
        c.commits() * n,
        c.notifies() * n,
        c.settings() * n,
        c.looks() * n,
        c.parameters() * n);
  }

  /** A HikariCP pool through the wire, every connection open before anything is counted. */
  private static HikariDataSource pool(TestDatabase db, PostgresWire wire) {
    HikariDataSource pool = db.newPoolVia(wire.port(), POOL, "sslmode=disable");
    await()
        .atMost(Duration.ofSeconds(20))
        .until(() -> pool.getHikariPoolMXBean().getTotalConnections() == POOL);
    return pool;
  }

  private static Once producer(HikariDataSource pool, TableQueueTransport transport) {
    return Once.builder().dataSource(pool).transport(transport).destinations("orders").build();
  }
}
