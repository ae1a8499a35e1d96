package dev.once.app.proof;

import dev.once.Once;
import dev.once.app.common.Database;
import dev.once.app.common.DatabaseOptions;
import dev.once.app.common.Flags;
import dev.once.app.common.Logging;
import dev.once.app.common.Migrations;
import dev.once.app.common.UserError;
import dev.once.scenario.OrderProducer;
import dev.once.scenario.ProductionGate;
import dev.once.scenario.WarehousePipeline;
import dev.once.scenario.WarehouseTables;
import dev.once.tablequeue.TableQueueTransport;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import javax.sql.DataSource;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code once produce}: commits orders, each with its OrderPaid event in the outbox, one
 * transaction per order. Only the database is touched: workers' relays publish the events.
 * Restartable: orders of the range that are already there are skipped.
 */
@Command(
    name = "produce",
    mixinStandardHelpOptions = true,
    description = {
      "Commits orders with their OrderPaid events (order row + outbox row in one transaction).",
      "Orders --from .. --from+--events-1 that already exist are skipped, so a killed producer"
          + " started again with the same options finishes the job."
    })
public final class ProduceCommand implements Callable<Integer> {

  @Mixin DatabaseOptions db = new DatabaseOptions();

  @Option(names = "--events", required = true, description = "Orders to produce.")
  int events;

  @Option(
      names = "--from",
      description = "First order id (default: one after the highest order id in the database).")
  Long from;

  @Option(
      names = "--rate",
      defaultValue = "0",
      description = "Orders per second; 0 for as fast as possible (default ${DEFAULT-VALUE}).")
  double rate;

  @Option(
      names = "--threads",
      defaultValue = "4",
      description = "Producer threads (default ${DEFAULT-VALUE}).")
  int threads;

  @Mixin HaltOptions halt = new HaltOptions();

  @Override
  public Integer call() throws InterruptedException {
    if (events < 1) {
      throw new UserError("--events must be 1 or more, was " + events);
    }
    if (threads < 1) {
      throw new UserError("--threads must be 1 or more, was " + threads);
    }
    if (from != null) {
      Flags.atLeast("--from", from, 1);
    }
    if (!(rate >= 0)) {
      throw new UserError("--rate must be 0 (as fast as possible) or more, was " + rate);
    }
    Logging.quietEngine(true);
    try (Database database = db.openShared(threads + 2)) {
      DataSource ds = database.dataSource();
      Migrations.apply(ds);
      WarehouseTables.create(ds);
      long first = from != null ? from : highestOrderId(ds) + 1;
      List<Long> missing = missing(ds, first, first + events - 1);
      long start = System.nanoTime();
      long known = 0;
      ProductionGate gate = halt.controlStdin ? ProductionGate.closed() : ProductionGate.open();
      try (Once once =
          WarehousePipeline.once(
              ds, TableQueueTransport.create(ds), halt.listener(System.out, gate))) {
        halt.ready(System.out);
        known = new OrderProducer(once, threads, rate, gate).produce(missing, Duration.ofDays(1));
      }
      double seconds = (System.nanoTime() - start) / 1e9;
      System.out.printf(
          "produced %d orders (%d..%d, %d were there already) in %.1f s, %.0f orders/s%n",
          missing.size(),
          first,
          first + events - 1,
          events - missing.size(),
          seconds,
          missing.size() / Math.max(seconds, 0.001));
      if (known > 0) {
        System.out.println(OrderProducer.alreadyInOutboxNote(known));
      }
      return 0;
    }
  }

  private static long highestOrderId(DataSource ds) {
    try (Connection c = ds.getConnection();
        PreparedStatement ps =
            c.prepareStatement("SELECT coalesce(max(order_id), 0) FROM demo_orders");
        ResultSet rs = ps.executeQuery()) {
      rs.next();
      return rs.getLong(1);
    } catch (SQLException e) {
      throw new IllegalStateException("could not read demo_orders: " + e.getMessage(), e);
    }
  }

  private static List<Long> missing(DataSource ds, long first, long last) {
    // the ids present, read in one pass (portable SQL: no generate_series on MariaDB)
    try (Connection c = ds.getConnection();
        PreparedStatement ps =
            c.prepareStatement("SELECT order_id FROM demo_orders WHERE order_id BETWEEN ? AND ?")) {
      ps.setLong(1, first);
      ps.setLong(2, last);
      java.util.BitSet present = new java.util.BitSet();
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          present.set((int) (rs.getLong(1) - first));
        }
      }
      List<Long> ids = new ArrayList<>();
      for (long id = first; id <= last; id++) {
        if (!present.get((int) (id - first))) {
          ids.add(id);
        }
      }
      return ids;
    } catch (SQLException e) {
      throw new IllegalStateException("could not read demo_orders: " + e.getMessage(), e);
    }
  }
}
