package dev.once.app;

import dev.once.Schema;
import dev.once.SchemaStatus;
import dev.once.app.common.Database;
import dev.once.app.common.DatabaseOptions;
import dev.once.app.common.Migrations;
import dev.once.app.common.UserError;
import dev.once.jdbc.Dialects;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code once schema print | apply | status}. */
@Command(
    name = "schema",
    mixinStandardHelpOptions = true,
    description = "Print, apply or show the version of the Once schema.",
    subcommands = {
      SchemaCommand.Print.class,
      SchemaCommand.Apply.class,
      SchemaCommand.Status.class
    })
final class SchemaCommand {

  @Command(name = "print", description = "Print the schema (every migration, in order) as SQL.")
  static final class Print implements Runnable {
    @Option(
        names = "--dialect",
        description = "postgresql (default) or mariadb (MariaDB and MySQL).",
        defaultValue = "postgresql")
    String dialect;

    @Override
    public void run() {
      System.out.print(
          Schema.sql(
              switch (dialect) {
                case "postgresql" -> Dialects.postgresql();
                case "mariadb", "mysql" -> Dialects.mariadb();
                default ->
                    throw new UserError(
                        "--dialect must be postgresql or mariadb, was '" + dialect + "'");
              }));
    }
  }

  @Command(
      name = "apply",
      description =
          "Apply the migrations the schema's history (table "
              + Migrations.HISTORY_TABLE
              + ", Flyway's format) does not record; a no-op when it is up to date.")
  static final class Apply implements Runnable {
    @Mixin DatabaseOptions db = new DatabaseOptions();

    @Override
    public void run() {
      try (Database database = db.open(2)) {
        int before = Schema.status(database.dataSource()).appliedVersion();
        SchemaStatus after = Migrations.apply(database.dataSource());
        System.out.println(
            (after.appliedVersion() == before
                    ? "Once schema already at version " + before
                    : "Once schema applied: version " + before + " -> " + after.appliedVersion())
                + " in '"
                + after.schema()
                + "' of "
                + database.description());
      }
    }
  }

  @Command(
      name = "status",
      description =
          "Print the versions the schema's history records and the version this Once expects;"
              + " exit 1 unless they match. Changes nothing.")
  static final class Status implements java.util.concurrent.Callable<Integer> {
    @Mixin DatabaseOptions db = new DatabaseOptions();

    @Override
    public Integer call() {
      try (Database database = db.openExisting(2)) {
        SchemaStatus status = Schema.status(database.dataSource());
        System.out.print(SchemaStatusText.of(status, database.description()));
        return status.upToDate() ? 0 : 1;
      }
    }
  }
}
