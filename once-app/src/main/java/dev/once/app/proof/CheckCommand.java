package dev.once.app.proof;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.once.app.common.Database;
import dev.once.app.common.DatabaseOptions;
import dev.once.app.common.Flags;
import dev.once.app.common.Migrations;
import dev.once.scenario.WarehouseCheck;
import dev.once.scenario.WarehouseTables;
import dev.once.scenario.WarehouseVerdict;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code once check}: the verdict from the database alone. Exit 0 only when every order has exactly
 * one dispatch job, one notification and one marker per consumer, and nothing is pending.
 */
@Command(
    name = "check",
    mixinStandardHelpOptions = true,
    description = {
      "Reads only the database and reports, per order, dispatch jobs, notifications, markers and"
          + " outbox rows still pending.",
      "Exit code 0 only when every order was processed exactly once and the backlog is drained;"
          + " 1 otherwise (the orders are named)."
    })
public final class CheckCommand implements Callable<Integer> {

  @Mixin DatabaseOptions db = new DatabaseOptions();

  @Option(
      names = "--wait",
      defaultValue = "0",
      description = "Seconds to wait for the verdict to become OK (default ${DEFAULT-VALUE}).")
  long waitSeconds;

  @Option(names = "--events", description = "Orders expected; any number when absent.")
  Long expected;

  @Option(names = "--json", description = "Print the report as one JSON object on stdout.")
  boolean json;

  @Spec picocli.CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() throws Exception {
    Flags.atLeast("--wait", waitSeconds, 0);
    if (expected != null) {
      Flags.atLeast("--events", expected, 0);
    }
    PrintWriter out = spec.commandLine().getOut();
    try (Database database = db.openExisting(2)) {
      Migrations.requirePresent(database.dataSource()); // read only: nothing is applied
      WarehouseTables.requirePresent(database.dataSource(), database.description());
      WarehouseVerdict verdict = await(database, expected == null ? -1 : expected, waitSeconds);
      if (json) {
        out.println(new ObjectMapper().writeValueAsString(CheckReport.toJson(verdict)));
      } else {
        out.println("once check on " + database.description());
        CheckReport.print(verdict, out);
      }
      out.flush();
      return verdict.ok() ? 0 : 1;
    }
  }

  /** Reads the verdict until it is OK or {@code seconds} passed. */
  static WarehouseVerdict await(Database database, long expected, long seconds)
      throws InterruptedException {
    long deadline = System.nanoTime() + seconds * 1_000_000_000L;
    while (true) {
      WarehouseVerdict verdict = WarehouseCheck.run(database.dataSource(), expected);
      if (verdict.ok() || System.nanoTime() >= deadline) {
        return verdict;
      }
      Thread.sleep(500);
    }
  }
}
