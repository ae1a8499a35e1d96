package dev.once.bench.e2e;

import dev.once.scenario.Drain;
import dev.once.scenario.WarehousePipeline;
import dev.once.scenario.WarehouseTables;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Arrays;
import java.util.List;
import javax.sql.DataSource;

/**
 * The bench's business tables and names. A run clears only what the bench owns: these tables, the
 * bench consumers' markers and the bench destinations' outbox rows.
 */
final class BenchTables {
  static final String IN = "bench-in";
  static final String OUT = "bench-out";
  static final String CONSUMER = "bench";
  static final String SINK = "bench-sink";
  static final String CEILING_CONSUMER = "bench-ceiling";
  static final String CEILING_OUT = "bench-ceiling-out";

  /** End to end, second hop: the warehouse's DispatchQueued events go here, to the notifier. */
  static final String E2E_DISPATCH = "bench-dispatch";

  static final String NOTIFIER = "bench-notify";

  /** The hand-written pipeline's destinations and groups (ceiling C). */
  static final String C_IN = "bench-c-in";

  static final String C_DISPATCH = "bench-c-dispatch";
  static final String C_OUT = "bench-c-out";
  static final String C_CONSUMER = "bench-c";
  static final String C_NOTIFIER = "bench-c-notify";

  /** The producer's business row. */
  static final String INSERT_ORDER = "INSERT INTO bench_orders (order_id) VALUES (?)";

  /**
   * Where the scenario's warehouse handler, run by the bench, writes its dispatch job (the effect
   * row) and its DispatchQueued event: a queue nobody reads, so the relays publish it as part of
   * the pipeline's work.
   */
  static final WarehousePipeline.Dispatch DISPATCH =
      new WarehousePipeline.Dispatch("bench_effects", OUT);

  /** End to end with two hops: the warehouse's dispatch job, then the notifier's notification. */
  static final WarehousePipeline.Dispatch E2E_WAREHOUSE =
      new WarehousePipeline.Dispatch("bench_effects", E2E_DISPATCH);

  static final String NOTIFICATIONS = "bench_notifications";

  private static final String CREATE =
      """
      CREATE TABLE IF NOT EXISTS bench_orders (
          order_id   bigint      PRIMARY KEY,
          created_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE TABLE IF NOT EXISTS bench_effects (
          id         bigserial   PRIMARY KEY,
          order_id   bigint      NOT NULL,
          event_id   text        NOT NULL,
          created_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE TABLE IF NOT EXISTS bench_notifications (
          id         bigserial   PRIMARY KEY,
          order_id   bigint      NOT NULL,
          event_id   text        NOT NULL,
          created_at timestamptz NOT NULL DEFAULT now()
      );
      """
          + HandSchema.CREATE;

  private static final String CLEAR =
      """
      TRUNCATE bench_orders, bench_effects, bench_notifications;
      DELETE FROM once_inbox
       WHERE consumer_id IN ('bench', 'bench-ceiling', 'bench-notify')
         AND event_id NOT LIKE 'earlier:%';
      DELETE FROM once_outbox
       WHERE destination IN ('bench-in', 'bench-out', 'bench-ceiling-out', 'bench-dispatch');
      """
          + HandSchema.CLEAR;

  /** The same tables on MariaDB/MySQL (ids compare byte for byte, as on PostgreSQL). */
  private static final String CREATE_MARIADB =
      """
      CREATE TABLE IF NOT EXISTS bench_orders (
          order_id   bigint      PRIMARY KEY,
          created_at datetime(6) NOT NULL DEFAULT (UTC_TIMESTAMP(6))
      ) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;
      CREATE TABLE IF NOT EXISTS bench_effects (
          id         bigint       AUTO_INCREMENT PRIMARY KEY,
          order_id   bigint       NOT NULL,
          event_id   varchar(200) NOT NULL,
          created_at datetime(6)  NOT NULL DEFAULT (UTC_TIMESTAMP(6))
      ) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;
      CREATE TABLE IF NOT EXISTS bench_notifications (
          id         bigint       AUTO_INCREMENT PRIMARY KEY,
          order_id   bigint       NOT NULL,
          event_id   varchar(200) NOT NULL,
          created_at datetime(6)  NOT NULL DEFAULT (UTC_TIMESTAMP(6))
      ) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;
      """
          + HandSchema.CREATE_MARIADB;

  /** MariaDB truncates one table per statement. */
  private static final String CLEAR_MARIADB =
      """
      TRUNCATE bench_orders;
      TRUNCATE bench_effects;
      TRUNCATE bench_notifications;
      DELETE FROM once_inbox
       WHERE consumer_id IN ('bench', 'bench-ceiling', 'bench-notify')
         AND event_id NOT LIKE 'earlier:%';
      DELETE FROM once_outbox
       WHERE destination IN ('bench-in', 'bench-out', 'bench-ceiling-out', 'bench-dispatch');
      """
          + HandSchema.CLEAR_MARIADB;

  private BenchTables() {}

  /**
   * Clears the bench's rows, then vacuums Once's tables: a run's deletes and sent rows leave dead
   * index entries at the head of the queue and pending-outbox indexes, and with autovacuum off (as
   * on the development machines) the next run would scan them all. Every phase starts from the same
   * state, as it would on a database whose autovacuum keeps up. On MariaDB/MySQL the same tables in
   * their SQL; InnoDB purges deleted rows by itself.
   */
  static void reset(DataSource dataSource) {
    if (isMariaDb(dataSource)) {
      run(dataSource, CREATE_MARIADB + CLEAR_MARIADB);
      return;
    }
    run(dataSource, CREATE + CLEAR);
    run(dataSource, "VACUUM once_outbox, once_queue, once_inbox");
  }

  /** Whether the bench runs on MariaDB/MySQL (its tables and the ceilings' SQL differ). */
  static boolean isMariaDb(DataSource dataSource) {
    try (Connection c = dataSource.getConnection()) {
      return WarehouseTables.isMariaDb(c);
    } catch (SQLException e) {
      throw new IllegalStateException("bench SQL failed: " + e.getMessage(), e);
    }
  }

  /**
   * Runs a script: in one call on PostgreSQL, statement by statement (split at a ';' that ends a
   * line) on MariaDB/MySQL, which runs one statement per call.
   */
  static void run(DataSource dataSource, String sql) {
    try (Connection c = dataSource.getConnection();
        Statement s = c.createStatement()) {
      if (WarehouseTables.isMariaDb(c)) {
        for (String statement : WarehouseTables.statements(sql)) {
          s.execute(statement);
        }
      } else {
        s.execute(sql);
      }
    } catch (SQLException e) {
      throw new IllegalStateException("bench SQL failed: " + e.getMessage(), e);
    }
  }

  /**
   * Waits until no outbox row of {@code destinations} is pending, looking every {@code pollMillis};
   * false if {@code timeoutNanos} ran out first.
   */
  static boolean awaitPublished(
      DataSource dataSource, long timeoutNanos, long pollMillis, String... destinations)
      throws InterruptedException {
    List<Drain.Route> routes =
        Arrays.stream(destinations).map(d -> new Drain.Route(d, null)).toList();
    long deadline = System.nanoTime() + timeoutNanos;
    while (Drain.read(dataSource, routes).outboxPending() > 0) {
      if (System.nanoTime() > deadline) {
        return false;
      }
      Thread.sleep(pollMillis);
    }
    return true;
  }

  /** Rows of {@code table} (order_id, event_id) beyond one per event id: second effects. */
  static long duplicates(DataSource dataSource, String table) {
    return count(dataSource, "SELECT count(*) - count(DISTINCT event_id) FROM " + table);
  }

  static long count(DataSource dataSource, String sql) {
    try (Connection c = dataSource.getConnection();
        Statement s = c.createStatement();
        var rs = s.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    } catch (SQLException e) {
      throw new IllegalStateException("bench SQL failed: " + e.getMessage(), e);
    }
  }
}
