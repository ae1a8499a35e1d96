package dev.once.app.common;

import java.util.List;
import picocli.CommandLine.Option;

/**
 * {@code --schema}: the namespace of the demo scenario's commands (demo, verify, worker, produce,
 * check, reset) — a PostgreSQL schema or a MariaDB database of their own, so that clearing the
 * demo's consumers cannot touch a user's consumers of the same names.
 */
public final class ScenarioSchema {
  @Option(
      names = "--schema",
      paramLabel = "NAME",
      description =
          "The demo's own namespace, created if needed: a PostgreSQL schema (or, on MariaDB, a"
              + " database) whatever schema --db names. Default: "
              + Database.DEMO_SCHEMA
              + ".")
  String schema;

  /** The namespace's name. */
  public String name() {
    return schema == null ? Database.DEMO_SCHEMA : schema;
  }

  /** Opens the namespace on {@code db} (null: the embedded database). */
  public Database open(String db, int poolSize) {
    return Database.openScenario(db, schema, poolSize);
  }

  /** Opens the namespace on {@code db} to read it: one that is not there is an error. */
  public Database openExisting(String db, int poolSize) {
    return Database.openScenario(db, schema, poolSize, false);
  }

  /** This option as command-line arguments, for a child process. */
  public List<String> args() {
    return List.of("--schema", name());
  }
}
