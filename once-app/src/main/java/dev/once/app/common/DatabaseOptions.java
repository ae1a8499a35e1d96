package dev.once.app.common;

import java.util.List;
import picocli.CommandLine.Option;

/**
 * {@code --db} and {@code --schema}: where a command finds the Once tables. Every command that
 * opens a database takes this mixin (and {@link TransportOptions} beside it when it moves events),
 * so the options mean the same everywhere: the tables are in the namespace {@code --schema} names —
 * a PostgreSQL schema, or on MariaDB/MySQL a database — whatever schema the URL names; by default
 * {@value Database#DEMO_SCHEMA}, where {@code once demo} runs, so that {@code once dead-letters
 * list --db URL} looks where {@code once demo --db URL} wrote. {@code once bench} alone keeps the
 * URL's own schema unless {@code --schema} is given (its tables and consumers are its own).
 */
public final class DatabaseOptions {
  @Option(
      names = "--db",
      paramLabel = "URL",
      description =
          "PostgreSQL or MariaDB/MySQL JDBC URL, e.g."
              + " jdbc:postgresql://127.0.0.1:5432/test?user=postgres or"
              + " jdbc:mariadb://127.0.0.1:3306/test?user=root; the tables are in --schema there."
              + " Default: $ONCE_DB (put a URL with a password there: a command line is visible to"
              + " every user in ps), else the embedded PostgreSQL in .once/pg.")
  String db;

  @Option(
      names = "--schema",
      paramLabel = "NAME",
      description =
          "The namespace of the Once tables: a PostgreSQL schema (on MariaDB/MySQL: a database),"
              + " whatever schema --db names. Default: "
              + Database.DEMO_SCHEMA
              + ", where the demo runs (bench: the schema --db names).")
  String schema;

  /** {@code --db} as given (null: absent; {@link Database#url} reads {@code $ONCE_DB} then). */
  public String db() {
    return db;
  }

  /** The namespace's name. */
  public String schema() {
    return schema == null ? Database.DEMO_SCHEMA : schema;
  }

  /** Opens the namespace, creating it if needed: for the commands that write the demo's tables. */
  public Database open(int poolSize) {
    return Database.openScenario(db, schema, poolSize);
  }

  /**
   * As {@link #open}, for the processes that must share a server with others (worker, produce):
   * without {@code --db} and {@code $ONCE_DB} it is an error, not an embedded database of its own.
   */
  public Database openShared(int poolSize) {
    return Database.openScenario(Database.requireUrl(db), schema, poolSize);
  }

  /**
   * Opens the namespace to look at what is there (check, status, dead letters, the dashboard,
   * schema status): one that does not exist is an error naming it, and nothing is created.
   */
  public Database openExisting(int poolSize) {
    return Database.openScenario(db, schema, poolSize, false);
  }

  /**
   * For {@code once bench}: the namespace {@code --schema} names (created if needed), else the
   * URL's own schema (the embedded database's default one).
   */
  public Database openOrUrlSchema(int poolSize) {
    return schema == null
        ? Database.open(db, poolSize)
        : Database.openScenario(db, schema, poolSize);
  }

  /** {@code --schema} as command-line arguments, for a child process (its URL goes in the env). */
  public List<String> schemaArgs() {
    return List.of("--schema", schema());
  }
}
