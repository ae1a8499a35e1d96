package dev.once;

/**
 * The Once schema's recorded version is not the one this Once runs on: newer (a newer Once migrated
 * it; this one refuses to start rather than misread its tables), older (migrations are pending), or
 * a migration failed half-way.
 */
public class SchemaVersionException extends OnceException {
  private static final long serialVersionUID = 1L;
  private final Reason reason;
  private final String schema;
  private final int applied;
  private final int expected;

  /** What is wrong with the schema's version. */
  public enum Reason {
    /** A newer Once migrated it. */
    NEWER,
    /** Migrations this Once needs are not applied. */
    OLDER,
    /** A migration failed half-way, or an applied one's script changed, or its tables disagree. */
    DAMAGED
  }

  public SchemaVersionException(
      Reason reason, String schema, int applied, int expected, String message) {
    super(message);
    this.reason = reason;
    this.schema = schema;
    this.applied = applied;
    this.expected = expected;
  }

  public Reason reason() {
    return reason;
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
