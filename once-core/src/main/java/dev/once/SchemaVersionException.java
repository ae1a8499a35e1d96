package dev.once;

/**
 * The Once schema's recorded version is not the one this Once runs on: newer (a newer Once migrated
 * it; this one refuses to start rather than misread its tables), older (migrations are pending), or
 * a migration failed half-way.
 */
public class SchemaVersionException extends OnceException {
  private static final long serialVersionUID = 1L;
  private final String schema;
  private final int applied;
  private final int expected;

  public SchemaVersionException(String schema, int applied, int expected, String message) {
    super(message);
    this.schema = schema;
    this.applied = applied;
    this.expected = expected;
  }

  /** The schema (MariaDB/MySQL: the database). */
  public String schema() {
    return schema;
  }

  /** The highest version its history records. */
  public int applied() {
    return applied;
  }

  /** The highest version this Once ships. */
  public int expected() {
    return expected;
  }
}
