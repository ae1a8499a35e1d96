package dev.once.bench.e2e.service;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.once.Event;
import dev.once.EventId;
import dev.once.Once;
import dev.once.OnceListener;
import dev.once.Relay;
import dev.once.spi.Transport;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;

/**
 * A small order service written as a user would from the README: a HikariCP pool of its own, {@code
 * Once.builder()} with Once's defaults, producers that commit an order row and an OrderPaid event
 * with {@code tx.update} + {@code tx.publish}, and a consumer whose {@code subscribe} handler
 * inserts the order's effect. {@code once bench e2e --service} runs it in a JVM of its own ({@link
 * ServiceRun}) and measures it beside the bench's own pipeline.
 *
 * <p>Nothing here is tuned for the bench: the shape a service would choose (4 consumer workers, 2
 * relays, the default batch of 32 and relay batch of 200, a pool sized as the README says) and
 * everything else Once's default.
 */
public final class OrderService implements AutoCloseable {
  /** Where the orders' events go; the bench clears rows of destinations that start "bench-". */
  public static final String ORDERS = "bench-service-orders";

  /** The consumer writing the effect. */
  public static final String CONSUMER = "bench-service";

  /**
   * Connections of the service's pool, sized as the README says for its largest case, the table
   * queue: 4 producer threads + 4 workers + 2 relays × 2 + 4 (the outbox's and the table queue's
   * {@code LISTEN} connections and {@code NOTIFY} senders). Until round 12 it was 14, which made
   * the table queue's threads queue for connections (docs/PERFORMANCE.md).
   */
  public static final int POOL_SIZE = 16;

  static final String SCHEMA =
      """
      CREATE TABLE IF NOT EXISTS service_orders (
          order_id   bigint      PRIMARY KEY,
          created_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE TABLE IF NOT EXISTS service_effects (
          id         bigserial   PRIMARY KEY,
          order_id   bigint      NOT NULL,
          event_id   text        NOT NULL,
          created_at timestamptz NOT NULL DEFAULT now()
      );
      """;

  private final HikariDataSource pool;
  private final Transport transport;
  private final Once once;
  private final int workers;
  private final int relays;
  private final List<AutoCloseable> running = new ArrayList<>();

  /**
   * The service on the database at {@code jdbcUrl}, its events carried by the transport {@code
   * transport} gives for the pool; {@code listener} hears Once (the bench's clock; a service would
   * pass its metrics).
   */
  public OrderService(
      String jdbcUrl,
      java.util.function.Function<DataSource, Transport> transport,
      int workers,
      int relays,
      OnceListener listener) {
    this(jdbcUrl, POOL_SIZE, transport, workers, relays, listener);
  }

  /**
   * With a pool of {@code poolSize} connections (the bench's question: does the pool limit it?).
   */
  public OrderService(
      String jdbcUrl,
      int poolSize,
      java.util.function.Function<DataSource, Transport> transport,
      int workers,
      int relays,
      OnceListener listener) {
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(jdbcUrl);
    config.setMaximumPoolSize(poolSize);
    config.setPoolName("order-service");
    this.pool = new HikariDataSource(config);
    this.workers = workers;
    this.relays = relays;
    createTables(pool);
    this.transport = transport.apply(pool);
    this.once =
        Once.builder()
            .dataSource(pool)
            .transport(this.transport)
            .destinations(ORDERS)
            .listener(listener)
            .build();
  }

  private static void createTables(DataSource ds) {
    try (Connection c = ds.getConnection();
        Statement s = c.createStatement()) {
      s.execute(SCHEMA);
    } catch (SQLException e) {
      throw new IllegalStateException("order service: could not create its tables: " + e, e);
    }
  }

  /** Starts the consumer (the effect) and the relays. */
  public OrderService start() {
    running.add(
        once.consumer(CONSUMER)
            .subscribe(
                ORDERS,
                (tx, event) ->
                    tx.update(
                        "INSERT INTO service_effects (order_id, event_id) VALUES (?, ?)",
                        Long.parseLong(event.key()),
                        event.id().value()))
            .workers(workers)
            .build()
            .start());
    for (int i = 0; i < relays; i++) {
      Relay relay = once.newRelay().start();
      running.add(relay);
    }
    return this;
  }

  /** One order: its row and its OrderPaid event, committed together. */
  public void placeOrder(long orderId) {
    once.useTransaction(
        tx -> {
          tx.update("INSERT INTO service_orders (order_id) VALUES (?)", orderId);
          tx.publish(
              Event.builder()
                  .id(EventId.of("order-paid", orderId))
                  .destination(ORDERS)
                  .key(orderId)
                  .type("OrderPaid")
                  .payload("{\"orderId\":" + orderId + ",\"pad\":\"" + "x".repeat(64) + "\"}")
                  .build());
        });
  }

  /** The service's pool, for the bench's counts. */
  public DataSource dataSource() {
    return pool;
  }

  @Override
  public void close() {
    for (AutoCloseable c : running) {
      try {
        c.close();
      } catch (Exception ignored) {
        // shutting down
      }
    }
    once.close();
    transport.close(); // the service's: Once does not close it (on Kafka its consumers leave their
    // group)
    pool.close();
  }
}
