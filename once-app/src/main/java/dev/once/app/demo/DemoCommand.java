package dev.once.app.demo;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.once.Once;
import dev.once.app.common.Database;
import dev.once.app.common.DatabaseOptions;
import dev.once.app.common.Flags;
import dev.once.app.common.Logging;
import dev.once.app.common.Migrations;
import dev.once.app.common.TransportOptions;
import dev.once.app.common.UserError;
import dev.once.app.metrics.WorkerMetrics;
import dev.once.app.ops.DashboardOptions;
import dev.once.dashboard.Dashboard;
import dev.once.scenario.ForeignData;
import dev.once.scenario.WarehouseTables;
import dev.once.spi.Transport;
import java.io.PrintStream;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code once demo}: the warehouse scenario end to end, with crashes, and a verdict from the data.
 */
@Command(
    name = "demo",
    mixinStandardHelpOptions = true,
    description = {
      "Runs the warehouse scenario: orders -> OrderPaid -> warehouse (dispatch job + DispatchQueued"
          + " + charge) -> notifier (notification + e-mail), crashing workers at every crash window;"
          + " charges and e-mails go over HTTP to a simulated payment provider and mail relay that"
          + " lose answers; then checks the data and the providers' ledgers.",
      "Exit code 0 only if every order has exactly one dispatch job, one notification and one"
          + " charge at the provider, markers match effects, no operation is left uncertain and the"
          + " backlog is drained. E-mails may be duplicated: the mail relay cannot deduplicate."
    })
public final class DemoCommand implements Callable<Integer> {

  @Option(
      names = "--events",
      defaultValue = "1000",
      description = "Orders to produce (default ${DEFAULT-VALUE}).")
  int events;

  @Option(
      names = "--seed",
      defaultValue = "1",
      description = "Seed of the injected faults (default ${DEFAULT-VALUE}).")
  long seed;

  @Option(
      names = "--crash-rate",
      defaultValue = "0.05",
      description =
          "Chance of a crash at each crash window, and share of provider answers lost after"
              + " acting (a quarter as many HTTP 503), 0 to 0.5; the attempts per delivery grow"
              + " with it (8 below 0.04, 73 at 0.5: docs/DEMO.md) (default ${DEFAULT-VALUE}).")
  double crashRate;

  @Option(
      names = "--duplicate-rate",
      defaultValue = "0.05",
      description = "Share of messages the transport publishes twice (default ${DEFAULT-VALUE}).")
  double duplicateRate;

  @Option(
      names = "--poison-rate",
      description =
          "Share of orders the warehouse handler fails on every time: each must end as exactly one"
              + " dead letter, without a dispatch job or a notification (default 0; with --ordered,"
              + " the share of orders with a status that fails until fixed, default 0.02).")
  Double poisonRate;

  @Option(
      names = "--ordered",
      description =
          "Run the ordered-consumer demo instead (any --transport that takes ordered()): five order-status"
              + " events per order through an ordered consumer, workers crashing before and after"
              + " commit, a poisoned status parking its order's key until it is fixed and the key"
              + " replayed. Exit code 0 only if every status took effect once, in publish order"
              + " (out-of-order effects: 0), and no key is left parked.")
  boolean ordered;

  @Option(
      names = "--lost-response-rate",
      description =
          "Put an HTTP front on the producer: orders are placed with POST /orders and an"
              + " Idempotency-Key per purchase; this share of the answers is lost after the API's"
              + " commit and the client retries with the same key. The report counts orders per key"
              + " and per purchase and events per order from the tables. Absent: orders are"
              + " committed directly (faster).")
  Double lostResponseRate;

  @Option(
      names = "--retry-with-new-key",
      description =
          "With --lost-response-rate: a broken client that retries with a new key, to see the"
              + " check fail (purchases ordered twice).")
  boolean retryWithNewKey;

  @Option(
      names = "--workers",
      defaultValue = "4",
      description =
          "Worker threads per consumer, producer threads, and operation workers per provider"
              + " (default ${DEFAULT-VALUE}).")
  int workers;

  @Option(
      names = "--timeout",
      defaultValue = "600",
      description = "Seconds to wait for the backlog to drain (default ${DEFAULT-VALUE}).")
  long timeoutSeconds;

  @Mixin DatabaseOptions db = new DatabaseOptions();

  @Option(
      names = ForeignData.FORCE_FLAG,
      description =
          "Run even though the Once tables hold other consumers' rows (refused otherwise: the"
              + " demo's names may be theirs too). Clears the demo's rows only.")
  boolean forceShared;

  @Option(
      names = "--metrics-port",
      description =
          "Serve Prometheus metrics at http://BIND:PORT/metrics while the demo runs (BIND: see"
              + " --metrics-bind).")
  Integer metricsPort;

  @Option(
      names = "--metrics-bind",
      defaultValue = "127.0.0.1",
      description =
          "Address /metrics listens on. Default: ${DEFAULT-VALUE} (this machine only); 0.0.0.0"
              + " for every interface.")
  String metricsBind;

  @Option(names = "--json", description = "Print the report as one JSON object on stdout.")
  boolean json;

  @Option(names = "--verbose", description = "Log what the engine logs (crashes included).")
  boolean verbose;

  @Mixin TransportOptions transportOptions;

  @Mixin DashboardOptions dashboardOptions = new DashboardOptions();

  @Override
  public Integer call() throws Exception {
    Flags.port("--metrics-port", metricsPort);
    DemoSettings settings =
        new DemoSettings(
            events,
            seed,
            crashRate,
            duplicateRate,
            poisonRate == null ? 0 : poisonRate,
            workers,
            Duration.ofSeconds(timeoutSeconds),
            lostResponseRate,
            retryWithNewKey);
    dashboardOptions.check();
    if (ordered) {
      transportOptions.checkKeepsKeyOrder("--ordered");
    } else {
      transportOptions.check();
    }
    Logging.quietEngine(!verbose);
    PrintStream progress = System.err;
    if (ordered) {
      return runOrdered(settings, progress);
    }
    try (Database database = db.open(workers * 5 + 12)) {
      progress.println(
          "once demo: "
              + events
              + " orders on "
              + database.description()
              + ", transport "
              + transportOptions.name()
              + ", crash rate "
              + crashRate
              + ", duplicate rate "
              + duplicateRate
              + ", poison rate "
              + (poisonRate == null ? 0 : poisonRate)
              + ", up to "
              + settings.maxAttempts()
              + " attempts per delivery"
              + (lostResponseRate == null
                  ? ""
                  : ", HTTP front losing " + lostResponseRate + " of the answers")
              + ", seed "
              + seed);
      Migrations.apply(database.dataSource());
      ForeignData.refuseUnlessForced(
          database.dataSource(),
          "once demo",
          database.description(),
          forceShared,
          progress::println);
      try (DemoRunLock lock = DemoRunLock.take(database.dataSource(), database.description());
          Transport transport =
              transportOptions.open(database.dataSource(), Duration.ofSeconds(2));
          Once admin = // the dashboard's replay and discard; the scenario builds its own
              Once.builder().dataSource(database.dataSource()).transport(transport).build()) {
        DemoScenario scenario =
            new DemoScenario(database.dataSource(), transport, settings, progress);
        WorkerMetrics metrics = null;
        if (metricsPort != null) {
          metrics =
              WorkerMetrics.start(metricsBind, metricsPort, database.dataSource())
                  .brokerDeadLetters(transport, WarehouseTables.CONSUMER_DESTINATIONS);
          scenario.listener(metrics.listener());
          progress.println("metrics at http://" + metricsBind + ":" + metrics.port() + "/metrics");
        }
        Dashboard dashboard =
            dashboardOptions.start(database.dataSource(), admin.deadLetters(), transport, progress);
        if (dashboard != null) {
          scenario.listener(dashboardOptions.listener());
        }
        DemoReport report;
        try {
          report = scenario.run();
        } finally {
          if (metrics != null) {
            metrics.close();
          }
          if (dashboard != null) {
            dashboard.close(); // it watches the run; once dashboard serves the database afterwards
          }
        }
        if (json) {
          System.out.println(
              new ObjectMapper()
                  .writeValueAsString(report.toJson(database.description(), transport.name())));
        } else {
          report.print(System.out, database.description(), transport.name());
        }
        return report.ok() ? 0 : 1;
      }
    }
  }

  private int runOrdered(DemoSettings settings, PrintStream progress) throws Exception {
    if (lostResponseRate != null || metricsPort != null) {
      throw new UserError(
          "--ordered takes --events, --seed, --crash-rate, --poison-rate,"
              + " --workers, --timeout, --json and the database options only");
    }
    double poison = poisonRate == null ? 0.02 : poisonRate;
    try (Database database = db.open(settings.workers() + 12)) {
      progress.println(
          "once demo --ordered: "
              + events
              + " orders on "
              + database.description()
              + ", crash rate "
              + crashRate
              + ", poison rate "
              + poison
              + ", seed "
              + seed);
      Migrations.apply(database.dataSource());
      try (DemoRunLock lock = DemoRunLock.take(database.dataSource(), database.description());
          Transport transport =
              transportOptions.open(database.dataSource(), Duration.ofSeconds(2))) {
        OrderedDemo.Report report =
            new OrderedDemo(database.dataSource(), transport, settings, poison, progress).run();
        if (json) {
          System.out.println(new ObjectMapper().writeValueAsString(report.toJson()));
        } else {
          report.print(System.out);
        }
        return report.ok() ? 0 : 1;
      }
    }
  }
}
