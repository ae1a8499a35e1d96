package dev.once.app.common;

import java.util.List;
import picocli.CommandLine.Option;

/**
 * {@code --db} and {@code --schema}: where a command finds the Once tables. Every command that
 * opens a database takes this mixin (and {@link TransportOptions} beside it when it moves events),
 * so the options mean the same everywhere: the tables are in the namespace — a PostgreSQL schema,
 * or on MariaDB/MySQL a database — that {@code --schema} names, else the one the URL names as JDBC
 * has it ({@code currentSchema}; MariaDB: the database in the path), else {@value
 * Database#DEMO_SCHEMA}, where {@code once demo} runs; the two naming different ones is an error
 * ({@link JdbcUrls#namespace}). {@code once bench} alone keeps the URL's own schema, the server's
 * default one included, unless {@code --schema} is given (its tables and consumers are its own).
 */
public final class DatabaseOptions {
  @Option(
      names = "--db",
      paramLabel = "URL",
      description =
          "PostgreSQL or MariaDB/MySQL JDBC URL, e.g."
              + " jdbc:postgresql://127.0.0.1:5432/test?user=postgres&currentSchema=app or"
              + " jdbc:mariadb://127.0.0.1:3306/app?user=root. Default: $ONCE_DB (put a URL with a"
              + " password there: a command line is visible to every user in ps), else the"
              + " embedded PostgreSQL in .once/pg.")
  String db;

  @Option(
      names = "--schema",
      paramLabel = "NAME",
      description =
          "The namespace of the Once tables: a PostgreSQL schema (on MariaDB/MySQL: a database)."
              + " Default: the one --db names (currentSchema; MariaDB: the database), else "
              + Database.DEMO_SCHEMA
              + ", where the demo runs (bench: the schema --db names).")
  String schema;

  /** {@code --db} as given (null: absent; {@link Database#url} reads {@code $ONCE_DB} then). */
  public String db() {
    return db;
  }

  /** The namespace's name: {@code --schema}, else the URL's, else the demo's. */
  public String schema() {
    return JdbcUrls.namespace(Database.url(db), schema);
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
