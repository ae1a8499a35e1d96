package dev.once.app.proof;

import dev.once.Once;
import dev.once.OnceListener;
import dev.once.app.common.Database;
import dev.once.app.common.DatabaseOptions;
import dev.once.app.common.Flags;
import dev.once.app.common.Logging;
import dev.once.app.common.Migrations;
import dev.once.app.common.TransportOptions;
import dev.once.app.metrics.WorkerMetrics;
import dev.once.app.ops.DashboardOptions;
import dev.once.dashboard.Dashboard;
import dev.once.scenario.WarehousePipeline;
import dev.once.scenario.WarehouseTables;
import dev.once.spi.Transport;
import dev.once.testkit.EarlyAckingTransport;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code once worker}: the demo's relays and consumers until stopped (SIGTERM / Ctrl-C closes them
 * cleanly; SIGKILL is what {@code once verify} uses). Any number of workers may run on one
 * database, on any number of machines: they coordinate only through the database and the broker.
 *
 * <p>With {@code --metrics-port}, the worker serves Prometheus metrics at {@code /metrics} (the
 * workload's {@link WorkerMetrics}).
 */
@Command(
    name = "worker",
    mixinStandardHelpOptions = true,
    description = {
      "Runs the demo scenario's relays and consumers (warehouse, notifier) until stopped.",
      "Start as many as you like, on as many machines as you like, on one database."
    })
public final class WorkerCommand implements Callable<Integer> {

  @Mixin DatabaseOptions db = new DatabaseOptions();

  @Mixin TransportOptions transportOptions;

  @Option(
      names = "--threads",
      defaultValue = "2",
      description = "Worker threads per consumer (default ${DEFAULT-VALUE}).")
  int threads;

  @Option(
      names = "--relays",
      defaultValue = "1",
      description = "Relays in this process (default ${DEFAULT-VALUE}).")
  int relays;

  @Option(
      names = "--visibility-timeout",
      defaultValue = "30",
      description =
          "Table queue: seconds a dead worker's deliveries stay invisible (default ${DEFAULT-VALUE}).")
  long visibilitySeconds;

  @Option(
      names = "--stats-every-ms",
      hidden = true,
      defaultValue = "0",
      description = "Print a stats line this often (for once verify); 0 = never.")
  long statsEveryMillis;

  @Option(
      names = "--early-ack",
      hidden = true,
      description =
          "Break the worker on purpose: acknowledge deliveries on receipt, before the commit"
              + " (shows that verify and check catch it).")
  boolean earlyAck;

  @Option(
      names = "--metrics-port",
      description =
          "Serve Prometheus metrics at http://BIND:PORT/metrics while running (BIND: see"
              + " --metrics-bind).")
  Integer metricsPort;

  @Option(
      names = "--metrics-bind",
      defaultValue = "127.0.0.1",
      description =
          "Address /metrics listens on. Default: ${DEFAULT-VALUE} (this machine only); 0.0.0.0"
              + " for every interface.")
  String metricsBind;

  @Option(names = "--verbose", description = "Log what the engine logs.")
  boolean verbose;

  @Mixin HaltOptions halt = new HaltOptions();

  @Mixin DashboardOptions dashboardOptions = new DashboardOptions();

  static final String READY = "ready";

  private final WorkerStats stats = new WorkerStats();

  @Override
  public Integer call() throws InterruptedException {
    Flags.range("--threads", threads, 1, 256);
    Flags.range("--relays", relays, 0, 64);
    Flags.atLeast("--visibility-timeout", visibilitySeconds, 1);
    Flags.atLeast("--stats-every-ms", statsEveryMillis, 0);
    Flags.port("--metrics-port", metricsPort);
    dashboardOptions.check();
    Logging.quietEngine(!verbose);
    CountDownLatch stopped = new CountDownLatch(1);
    Database database = db.openShared(threads * 2 + relays + 4);
    Migrations.apply(database.dataSource());
    WarehouseTables.create(database.dataSource());
    Transport opened =
        transportOptions.open(database.dataSource(), Duration.ofSeconds(visibilitySeconds));
    Transport transport = earlyAck ? new EarlyAckingTransport(opened) : opened;
    WorkerMetrics metrics =
        metricsPort == null
            ? null
            : WorkerMetrics.start(metricsBind, metricsPort, database.dataSource())
                .brokerDeadLetters(opened, WarehouseTables.CONSUMER_DESTINATIONS);
    Once once = WarehousePipeline.once(database.dataSource(), transport, listeners(metrics));
    Dashboard dashboard =
        dashboardOptions.start(database.dataSource(), once.deadLetters(), opened, System.err);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  if (dashboard != null) {
                    dashboard.close();
                  }
                  once.close();
                  transport.close();
                  if (metrics != null) {
                    metrics.close();
                  }
                  database.close();
                  stopped(stats);
                  stopped.countDown();
                }));
    WarehousePipeline.start(once, threads, relays);
    if (statsEveryMillis > 0) {
      stats.printEvery(Duration.ofMillis(statsEveryMillis), System.out);
    }
    halt.ready(System.out);
    System.err.println(
        "once worker: running on " + database.description() + ", transport " + transport.name());
    if (metrics != null) {
      System.err.println(
          "once worker: metrics at http://" + metricsBind + ":" + metrics.port() + "/metrics");
    }
    stopped.await();
    return 0;
  }

  /** The last counts: a stats line for verify, a sentence for a person. */
  private void stopped(WorkerStats stats) {
    if (statsEveryMillis > 0) {
      System.out.println(stats.line());
      System.out.flush();
    }
    System.err.println("once worker: stopped; " + stats.summary());
  }

  private OnceListener[] listeners(WorkerMetrics metrics) {
    List<OnceListener> all = new ArrayList<>(List.of(halt.listener(System.out), stats));
    if (metrics != null) {
      all.add(metrics.listener());
    }
    if (dashboardOptions.enabled()) {
      all.add(dashboardOptions.listener());
    }
    return all.toArray(OnceListener[]::new);
  }
}
