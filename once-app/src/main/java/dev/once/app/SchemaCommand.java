package dev.once.app;

import dev.once.Schema;
import dev.once.app.common.Database;
import dev.once.app.common.Migrations;
import dev.once.app.common.UserError;
import dev.once.spi.Dialects;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code once schema print | apply}. */
@Command(
    name = "schema",
    mixinStandardHelpOptions = true,
    description = "Print or apply the Once schema.",
    subcommands = {SchemaCommand.Print.class, SchemaCommand.Apply.class})
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
          "Apply the schema with Flyway (history table " + Migrations.HISTORY_TABLE + ").")
  static final class Apply implements Runnable {
    @Option(
        names = "--db",
        description =
            "PostgreSQL or MariaDB JDBC URL; default $ONCE_DB, else the embedded PostgreSQL.")
    String db;

    @Override
    public void run() {
      try (Database database = Database.openAny(db, 2)) {
        Migrations.apply(database.dataSource());
        System.out.println("Once schema applied to " + database.description());
      }
    }
  }
}
