package dev.once.app.proof;

import dev.once.app.Database;
import dev.once.app.Migrations;
import dev.once.app.TransportOptions;
import dev.once.app.scenario.WarehouseTables;
import dev.once.spi.Transport;
import java.time.Duration;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code once reset}: clears the demo's tables, markers, outbox rows and queues. */
@Command(
    name = "reset",
    mixinStandardHelpOptions = true,
    description =
        "Clears the demo tables, the demo consumers' markers, the demo's outbox rows and queues"
            + " (nothing else). Stop the workers first.")
public final class ResetCommand implements Runnable {

  @Option(
      names = "--db",
      description = "JDBC URL. Default: $ONCE_DB, else the embedded PostgreSQL in .once/pg.")
  String db;

  @Mixin TransportOptions transportOptions;

  @Spec picocli.CommandLine.Model.CommandSpec spec;

  @Override
  public void run() {
    try (Database database = Database.openAny(db, 2)) {
      Migrations.apply(database.dataSource());
      try (Transport transport =
          transportOptions.open(database.dataSource(), Duration.ofSeconds(30))) {
        WarehouseTables.reset(database.dataSource(), transport);
        spec.commandLine()
            .getOut()
            .println(
                "once reset: demo tables, markers, outbox rows and "
                    + transport.name()
                    + " queues cleared on "
                    + database.description());
      }
    }
  }
}
