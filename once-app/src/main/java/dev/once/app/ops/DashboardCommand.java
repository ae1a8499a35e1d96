package dev.once.app.ops;

import dev.once.Once;
import dev.once.app.common.Database;
import dev.once.app.common.DatabaseOptions;
import dev.once.app.common.Migrations;
import dev.once.app.common.TransportOptions;
import dev.once.app.common.UserError;
import dev.once.dashboard.Dashboard;
import dev.once.spi.Transport;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code once dashboard}: the web page over a Once database, until stopped. */
@Command(
    name = "dashboard",
    mixinStandardHelpOptions = true,
    description = {
      "Serves the dashboard: backlog, rates and ages per consumer, the outbox, operations by"
          + " state, dead letters (grouped, paged, redacted; replay and discard) and uncertain"
          + " operations. Runs until stopped (Ctrl-C).",
      "Actions need the token printed at start (open the printed URL); --read-only hides them."
    })
public final class DashboardCommand implements Callable<Integer> {
  @Mixin DatabaseOptions db = new DatabaseOptions();

  @Option(
      names = "--port",
      defaultValue = "8080",
      description = "Port (default ${DEFAULT-VALUE}; 0 picks a free one).")
  int port;

  @Option(
      names = "--bind",
      defaultValue = "127.0.0.1",
      description = "Address to listen on (default ${DEFAULT-VALUE}: this machine only).")
  String bind;

  @Option(names = "--read-only", description = "Hide and refuse replay, discard and reveal.")
  boolean readOnly;

  @Option(
      names = "--token",
      description =
          "The token actions need (at least 16 characters; default: a random one, printed)."
              + " Also read from the environment variable ONCE_DASHBOARD_TOKEN.")
  String token;

  @Option(names = "--actor", description = "Who actions are recorded as (default: user@host).")
  String actor;

  @Mixin TransportOptions transportOptions;

  @Mixin BrokerGroups groups;

  @Override
  public Integer call() throws InterruptedException {
    DashboardOptions.checkPort(port);
    String secret = token != null ? token : System.getenv("ONCE_DASHBOARD_TOKEN");
    if (secret != null && secret.length() < 16) {
      throw new UserError("--token must have at least 16 characters, had " + secret.length());
    }
    CountDownLatch stopped = new CountDownLatch(1);
    Database database = db.openExisting(6);
    Migrations.apply(database.dataSource());
    Transport transport = transportOptions.open(database.dataSource(), Duration.ofSeconds(30));
    Once once = Once.builder().dataSource(database.dataSource()).transport(transport).build();
    Dashboard dashboard =
        start(
            Dashboard.builder(database.dataSource(), once.deadLetters())
                .bind(bind)
                .port(port)
                .token(secret)
                .readOnly(readOnly)
                .transport(
                    transport,
                    transportOptions.keepsBrokerDeadLetters()
                        ? groups.byConsumer(database.dataSource(), transport, System.err)
                        : Map.of())
                .actor(
                    actor != null ? actor : DeadLetterResolutions.defaultActor() + " (dashboard)"),
            System.out);
    System.err.println("once dashboard: on " + database.description() + "; Ctrl-C stops it");
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  dashboard.close();
                  once.close();
                  transport.close();
                  database.close();
                  stopped.countDown();
                }));
    stopped.await();
    return 0;
  }

  /** Starts it and prints the URL to open (with the token, unless read-only). */
  static Dashboard start(Dashboard.Builder builder, PrintStream out) {
    Dashboard dashboard;
    try {
      dashboard = builder.build().start();
    } catch (IllegalArgumentException e) {
      throw new UserError(e.getMessage(), e);
    } catch (UncheckedIOException e) {
      throw new UserError(
          e.getMessage() + " (" + e.getCause().getMessage() + "): choose another port or address",
          e);
    }
    out.println(
        "dashboard at "
            + (dashboard.readOnly() ? dashboard.url() + " (read-only)" : dashboard.urlWithToken()));
    out.flush();
    return dashboard;
  }
}
