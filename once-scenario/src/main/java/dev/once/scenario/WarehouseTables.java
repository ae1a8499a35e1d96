package dev.once.scenario;

import dev.once.spi.QueueAdmin;
import dev.once.spi.Transport;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import javax.sql.DataSource;

/**
 * The demo's business tables, and what a demo run clears when it starts: these tables, the demo
 * consumers' markers, the demo destinations' outbox rows, the demo providers' operations and the
 * demo's queues — nothing else. The effect tables have no unique constraint on order_id on purpose:
 * a second effect is counted, not prevented.
 */
public final class WarehouseTables {
  public static final String ORDERS = "orders";
  public static final String DISPATCH = "dispatch";
  public static final String WAREHOUSE = "warehouse";
  public static final String NOTIFIER = "notifier";
  public static final String PAYMENTS = "payments";
  public static final String MAIL = "mail";

  /** The demo's consumer groups and the destination each reads (the dashboard asks the broker). */
  public static final java.util.Map<String, String> CONSUMER_DESTINATIONS =
      java.util.Map.of(WAREHOUSE, ORDERS, NOTIFIER, DISPATCH);

  /** An arbitrary advisory lock key held while the tables are created ("once" in ASCII). */
  private static final long CREATE_LOCK = 0x6f6e6365L;

  private static final String CREATE =
      """
      CREATE TABLE IF NOT EXISTS demo_orders (
          order_id     bigint      PRIMARY KEY,
          amount_cents int         NOT NULL,
          created_at   timestamptz NOT NULL DEFAULT now()
      );
      CREATE TABLE IF NOT EXISTS demo_dispatch_jobs (
          id         bigserial   PRIMARY KEY,
          order_id   bigint      NOT NULL,  -- no unique constraint: a double effect must show
          event_id   text        NOT NULL,  -- the OrderPaid event that caused it
          created_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE TABLE IF NOT EXISTS demo_notifications (
          id         bigserial   PRIMARY KEY,
          order_id   bigint      NOT NULL,
          event_id   text        NOT NULL,  -- the DispatchQueued event that caused it
          created_at timestamptz NOT NULL DEFAULT now()
      );
      ALTER TABLE demo_orders ADD COLUMN IF NOT EXISTS poison boolean NOT NULL DEFAULT false;
      -- orders placed through the demo's HTTP front: the client's key and its purchase number
      ALTER TABLE demo_orders ADD COLUMN IF NOT EXISTS request_key text;
      ALTER TABLE demo_orders ADD COLUMN IF NOT EXISTS purchase bigint;
      CREATE TABLE IF NOT EXISTS demo_order_number (  -- the HTTP front's order numbers
          id      int    PRIMARY KEY,
          last_id bigint NOT NULL
      );
      CREATE INDEX IF NOT EXISTS demo_dispatch_jobs_order ON demo_dispatch_jobs (order_id);
      CREATE INDEX IF NOT EXISTS demo_notifications_order ON demo_notifications (order_id);
      """;

  /** The same tables on MariaDB/MySQL (ids compare byte for byte, as on PostgreSQL). */
  private static final String CREATE_MARIADB =
      """
      CREATE TABLE IF NOT EXISTS demo_orders (
          order_id     bigint      PRIMARY KEY,
          amount_cents int         NOT NULL,
          created_at   datetime(6) NOT NULL DEFAULT (UTC_TIMESTAMP(6)),
          poison       boolean     NOT NULL DEFAULT false
      ) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;
      CREATE TABLE IF NOT EXISTS demo_dispatch_jobs (
          id         bigint       AUTO_INCREMENT PRIMARY KEY,
          order_id   bigint       NOT NULL,
          event_id   varchar(200) NOT NULL,
          created_at datetime(6)  NOT NULL DEFAULT (UTC_TIMESTAMP(6)),
          INDEX demo_dispatch_jobs_order (order_id),
          INDEX demo_dispatch_jobs_event (event_id)  -- the check's anti-joins (no hash join)
      ) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;
      CREATE TABLE IF NOT EXISTS demo_notifications (
          id         bigint       AUTO_INCREMENT PRIMARY KEY,
          order_id   bigint       NOT NULL,
          event_id   varchar(200) NOT NULL,
          created_at datetime(6)  NOT NULL DEFAULT (UTC_TIMESTAMP(6)),
          INDEX demo_notifications_order (order_id),
          INDEX demo_notifications_event (event_id)
      ) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;
      ALTER TABLE demo_orders ADD COLUMN IF NOT EXISTS request_key varchar(255);
      ALTER TABLE demo_orders ADD COLUMN IF NOT EXISTS purchase bigint;
      CREATE TABLE IF NOT EXISTS demo_order_number (
          id      int    PRIMARY KEY,
          last_id bigint NOT NULL
      ) ENGINE = InnoDB;
      """;

  private static final String CLEAR =
      """
      DELETE FROM once_inbox WHERE consumer_id IN ('warehouse', 'notifier');
      DELETE FROM once_outbox WHERE destination IN ('orders', 'dispatch');
      DELETE FROM once_operation WHERE provider IN ('payments', 'mail');
      DELETE FROM once_attempt WHERE consumer_id IN ('warehouse', 'notifier');
      DELETE FROM once_suspect WHERE consumer_id IN ('warehouse', 'notifier');
      DELETE FROM once_dead_letter WHERE consumer_id IN ('warehouse', 'notifier')
         OR (consumer_id = '(relay)' AND destination IN ('orders', 'dispatch'));
      DELETE FROM once_request WHERE scope = 'once-demo';
      DELETE FROM demo_order_number;
      INSERT INTO demo_order_number (id, last_id) VALUES (1, 0);
      """;

  private WarehouseTables() {}

  /** An order's amount: the producer stores it, the warehouse charges it. */
  public static int amountCents(long orderId) {
    return (int) (orderId % 9_000) + 100;
  }

  /**
   * Creates the tables if needed. Several processes may start at once: an advisory lock lets one
   * create them while the others wait (concurrent CREATE IF NOT EXISTS can still collide).
   */
  public static void create(DataSource dataSource) {
    try (Connection c = dataSource.getConnection();
        Statement s = c.createStatement()) {
      if (isMariaDb(c)) { // CREATE TABLE IF NOT EXISTS is safe there (metadata locks); no DDL tx
        for (String statement : statements(CREATE_MARIADB)) {
          s.execute(statement);
        }
        return;
      }
      c.setAutoCommit(false);
      s.execute("SELECT pg_advisory_xact_lock(" + CREATE_LOCK + ")");
      s.execute(CREATE);
      c.commit();
    } catch (SQLException e) {
      throw new IllegalStateException("could not create the demo tables: " + e.getMessage(), e);
    }
  }

  /**
   * For a command that only reads them ({@code once check}): fails, creating nothing, when the
   * demo's tables are not there.
   */
  public static void requirePresent(DataSource dataSource, String database) {
    try (Connection c = dataSource.getConnection();
        Statement s = c.createStatement()) {
      for (String table : List.of("demo_orders", "demo_dispatch_jobs", "demo_notifications")) {
        try {
          s.executeQuery("SELECT 1 FROM " + table + " WHERE 1 = 0").close();
        } catch (SQLException missing) {
          throw new IllegalStateException(
              "demo table "
                  + table
                  + " not found on "
                  + database
                  + ": nothing to check; once demo, once verify, once reset or once worker"
                  + " create the demo's tables");
        }
      }
    } catch (SQLException e) {
      throw new IllegalStateException("could not read the demo tables: " + e.getMessage(), e);
    }
  }

  /** Creates the tables if needed and clears everything a previous demo run left. */
  public static void reset(DataSource dataSource, Transport transport) {
    create(dataSource);
    try (Connection c = dataSource.getConnection();
        Statement s = c.createStatement()) {
      s.execute(
          isMariaDb(c)
              ? "TRUNCATE demo_orders"
              : "TRUNCATE demo_orders, demo_dispatch_jobs, demo_notifications");
      if (isMariaDb(c)) { // one table per TRUNCATE there
        s.execute("TRUNCATE demo_dispatch_jobs");
        s.execute("TRUNCATE demo_notifications");
      }
      for (String statement : statements(CLEAR)) {
        s.execute(statement);
      }
    } catch (SQLException e) {
      throw new IllegalStateException("could not clear the demo tables: " + e.getMessage(), e);
    }
    transport.declare(ORDERS, WAREHOUSE);
    transport.declare(DISPATCH, NOTIFIER);
    transport
        .capability(QueueAdmin.class)
        .ifPresent(
            q -> {
              q.purge(ORDERS, WAREHOUSE);
              q.purge(DISPATCH, NOTIFIER);
            });
  }

  /** Whether {@code c} is a MariaDB/MySQL connection (the scenario's SQL differs a little). */
  public static boolean isMariaDb(Connection c) throws SQLException {
    String product = c.getMetaData().getDatabaseProductName().toLowerCase(java.util.Locale.ROOT);
    return product.contains("mariadb") || product.contains("mysql");
  }

  /** A script's statements, split at a ';' that ends a line (MariaDB runs one at a time). */
  public static java.util.List<String> statements(String script) {
    return java.util.Arrays.stream(script.split(";[ \t]*(\n|$)"))
        .map(String::strip)
        .filter(statement -> !statement.isEmpty())
        .toList();
  }
}
