package dev.once.app.demo;

import dev.once.scenario.Drain;
import dev.once.spi.Transport;
import dev.once.testkit.FaultInjector;
import java.io.PrintStream;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import javax.sql.DataSource;

/**
 * Waits until every order is notified, nothing is pending and no operation is PENDING, IN_FLIGHT or
 * UNKNOWN, printing progress meanwhile.
 */
final class DemoProgress {
  private static final String SNAPSHOT =
      """
      SELECT (SELECT count(*) FROM demo_orders),
             (SELECT count(DISTINCT order_id) FROM demo_dispatch_jobs),
             (SELECT count(DISTINCT order_id) FROM demo_notifications),
             (SELECT count(*) FROM once_operation
               WHERE provider IN ('payments', 'mail')
                 AND state IN ('PENDING', 'IN_FLIGHT', 'UNKNOWN'))
      """;
  private static final Duration PRINT_EVERY = Duration.ofSeconds(2);

  private final DataSource dataSource;
  private final Transport transport;
  private final long events;
  private final PrintStream out;
  private final FaultInjector faults;

  DemoProgress(
      DataSource dataSource,
      Transport transport,
      long events,
      PrintStream out,
      FaultInjector faults) {
    this.dataSource = dataSource;
    this.transport = transport;
    this.events = events;
    this.out = out;
    this.faults = faults;
  }

  /** True when drained before {@code timeout} (counted from {@code startNanos}). */
  boolean awaitDrained(long startNanos, Duration timeout) throws InterruptedException {
    long lastPrint = 0;
    while (true) {
      long[] s = snapshot();
      Drain backlog = Drain.read(dataSource, transport, Drain.WAREHOUSE);
      long elapsed = System.nanoTime() - startNanos;
      boolean drained =
          s[0] >= events // a broken HTTP client places more
              && s[2] + backlog.deadLetters() == s[0]
              && backlog.isDrained()
              && s[3] == 0;
      if (drained || elapsed - lastPrint >= PRINT_EVERY.toNanos()) {
        out.printf(
            "  %5.1fs  orders %d/%d  dispatched %d  notified %d  dead letters %d  outbox pending %d"
                + "  queued %s  operations open %d  crashes %d%n",
            elapsed / 1e9,
            s[0],
            events,
            s[1],
            s[2],
            backlog.deadLetters(),
            backlog.outboxPending(),
            backlog.queued() < 0 ? "?" : Long.toString(backlog.queued()),
            s[3],
            faults.totalCrashes());
        lastPrint = elapsed;
      }
      if (drained) {
        return true;
      }
      if (elapsed > timeout.toNanos()) {
        out.println("  timed out after " + timeout.toSeconds() + " s");
        return false;
      }
      Thread.sleep(200);
    }
  }

  private long[] snapshot() {
    try (Connection c = dataSource.getConnection();
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery(SNAPSHOT)) {
      rs.next();
      return new long[] {rs.getLong(1), rs.getLong(2), rs.getLong(3), rs.getLong(4)};
    } catch (SQLException e) {
      throw new IllegalStateException("could not read progress: " + e.getMessage(), e);
    }
  }
}
