package dev.once.app.proof;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.once.app.common.Database;
import dev.once.app.common.DatabaseOptions;
import dev.once.app.common.Logging;
import dev.once.app.common.Migrations;
import dev.once.app.common.TransportOptions;
import dev.once.scenario.ForeignData;
import dev.once.scenario.WarehouseTables;
import dev.once.spi.Transport;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code once verify}: worker processes killed with SIGKILL at random moments and halted at every
 * crash window, restarted, while a producer process keeps producing; then the check, from the data.
 */
@Command(
    name = "verify",
    mixinStandardHelpOptions = true,
    description = {
      "Starts worker processes and a producer, kills them (SIGKILL at random moments, and halts at"
          + " each named crash window), restarts them, and at the end checks the data.",
      "Exit code 0 only if every order was processed exactly once and the backlog drained."
    })
public final class VerifyCommand implements Callable<Integer> {

  @Mixin DatabaseOptions db = new DatabaseOptions();

  @Option(
      names = ForeignData.FORCE_FLAG,
      description =
          "Run even though the Once tables hold other consumers' rows (refused otherwise: the"
              + " demo's names may be theirs too). Clears the demo's rows only.")
  boolean forceShared;

  @Mixin TransportOptions transportOptions;

  @Option(names = "--workers", defaultValue = "4", description = "Worker processes (default 4).")
  int workers;

  @Option(names = "--events", defaultValue = "20000", description = "Orders (default 20000).")
  int events;

  @Option(names = "--kills", defaultValue = "50", description = "Kills in all (default 50).")
  int kills;

  @Option(names = "--seed", defaultValue = "1", description = "Seed of the kill plan (default 1).")
  long seed;

  @Option(
      names = "--rate",
      defaultValue = "0",
      description =
          "Most orders/s the producer commits; default no limit (verify releases orders as its"
              + " kills progress, so that every crash window sees work).")
  double rate;

  @Option(
      names = "--timeout",
      defaultValue = "600",
      description = "Seconds to wait for the check after the kills (default ${DEFAULT-VALUE}).")
  long timeoutSeconds;

  @Option(
      names = "--early-ack",
      hidden = true,
      description = "Run broken workers that acknowledge before the commit: verify must fail.")
  boolean earlyAck;

  @Option(names = "--json", description = "Print the report as one JSON object on stdout.")
  boolean json;

  @Spec picocli.CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() throws Exception {
    Logging.quietEngine(true);
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter progress = spec.commandLine().getErr();
    try (Database database = db.open(8)) {
      Migrations.apply(database.dataSource());
      ForeignData.refuseUnlessForced(
          database.dataSource(),
          "once verify",
          database.description(),
          forceShared,
          progress::println);
      try (Transport transport =
          transportOptions.open(database.dataSource(), Duration.ofSeconds(5))) {
        WarehouseTables.reset(database.dataSource(), transport);
      }
      VerifySettings settings = settings(database);
      progress.printf(
          "once verify: %d workers, %d orders, %d kills on %s, transport %s; logs in %s%n",
          workers, events, kills, database.description(), transportOptions.name(), settings.logs());
      progress.flush();
      VerifyResult result = new VerifyRun(settings, database.dataSource(), progress).run();
      if (json) {
        out.println(
            new ObjectMapper()
                .writeValueAsString(
                    result.toJson(settings, database.description(), transportOptions.name())));
      } else {
        result.print(out, settings, database.description(), transportOptions.name());
      }
      out.flush();
      return result.ok() ? 0 : 1;
    }
  }

  /** The URLs, which may hold passwords, for the children's environment (never their argv). */
  private Map<String, String> childEnv(Database database) {
    Map<String, String> env = new HashMap<>(transportOptions.env());
    env.put(Database.ENV, database.jdbcUrl());
    return env;
  }

  private VerifySettings settings(Database database) throws IOException {
    List<String> childArgs = new ArrayList<>(db.schemaArgs());
    childArgs.addAll(transportOptions.args());
    if (earlyAck) {
      childArgs.add("--early-ack");
    }
    Path logs = Path.of(".once", "verify");
    Files.createDirectories(logs);
    try (var old = Files.list(logs)) {
      for (Path p : old.toList()) {
        Files.deleteIfExists(p);
      }
    }
    return new VerifySettings(
        workers,
        events,
        kills,
        seed,
        rate,
        Duration.ofSeconds(timeoutSeconds),
        childArgs,
        childEnv(database),
        logs.resolve("children.log"));
  }
}
