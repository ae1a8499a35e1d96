package dev.once.app.proof;

import dev.once.app.common.Database;
import dev.once.app.common.DatabaseOptions;
import dev.once.app.common.Migrations;
import dev.once.app.common.TransportOptions;
import dev.once.scenario.ForeignData;
import dev.once.scenario.WarehouseTables;
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

  @Mixin DatabaseOptions db = new DatabaseOptions();

  @Option(
      names = ForeignData.FORCE_FLAG,
      description =
          "Run even though the Once tables hold other consumers' rows (refused otherwise: the"
              + " demo's names may be theirs too). Clears the demo's rows only.")
  boolean forceShared;

  @Mixin TransportOptions transportOptions;

  @Spec picocli.CommandLine.Model.CommandSpec spec;

  @Override
  public void run() {
    try (Database database = db.open(2)) {
      Migrations.apply(database.dataSource());
      ForeignData.refuseUnlessForced(
          database.dataSource(),
          "once reset",
          database.description(),
          forceShared,
          spec.commandLine().getErr()::println);
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
