package dev.once.bench.e2e;

import java.lang.management.ManagementFactory;
import javax.sql.DataSource;

/**
 * What a measured phase cost, beside its rate: the CPU time of the bench's JVM (every thread: the
 * pipeline's and the tracer's), on PostgreSQL the bytes of WAL and the server's CPU time ({@link
 * PostgresCost}), and how Once batched (relay batches, consumer transactions). Where a rate moves
 * with the machine's load, these say what the work cost.
 */
final class RunCost {
  /**
   * CPU nanoseconds of this JVM; WAL bytes and the database server's CPU nanoseconds, -1 when not
   * known; Once's relay batches and consumer transactions (fewer per order: larger batches, fewer
   * commits).
   */
  record Spent(
      long cpuNanos,
      long walBytes,
      long dbCpuNanos,
      long relayBatches,
      long consumerTransactions) {}

  private final DataSource dataSource;
  private final E2eTimings timings;
  private final long relayBatches;
  private final long consumerTransactions;
  private final long cpu;
  private final PostgresCost.Reading pg;

  private RunCost(DataSource dataSource, E2eTimings timings) {
    this.dataSource = dataSource;
    this.timings = timings;
    this.relayBatches = timings.relayBatches();
    this.consumerTransactions = timings.consumerTransactions();
    this.pg = PostgresCost.read(dataSource);
    this.cpu = cpuNanos();
  }

  /** Starts counting now; {@code timings} counts the pipeline's batches. */
  static RunCost start(DataSource dataSource, E2eTimings timings) {
    return new RunCost(dataSource, timings);
  }

  /** What was spent since {@link #start}. */
  Spent stop() {
    long spent = cpuNanos() - cpu;
    PostgresCost.Reading now = pg == null ? null : PostgresCost.read(dataSource);
    return new Spent(
        spent,
        pg == null ? -1 : PostgresCost.walSince(dataSource, pg.lsn()),
        pg == null || pg.cpuNanos() < 0 || now.cpuNanos() < 0 ? -1 : now.cpuNanos() - pg.cpuNanos(),
        timings.relayBatches() - relayBatches,
        timings.consumerTransactions() - consumerTransactions);
  }

  private static long cpuNanos() {
    return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
        .getProcessCpuTime();
  }
}
