package dev.once.app.common;

import dev.once.Schema;
import dev.once.SchemaStatus;
import javax.sql.DataSource;

/**
 * Brings the Once schema to this Once's version with {@link Schema#apply}, which records each
 * migration in {@value Schema#HISTORY_TABLE} in Flyway's format: the table the starter's Flyway and
 * an application's own Flyway (with Once's location) use too, apart from the application's own
 * history in the same schema.
 */
public final class Migrations {
  public static final String HISTORY_TABLE = Schema.HISTORY_TABLE;

  private Migrations() {}

  /**
   * For commands that only read (status, dead-letters, check): the tables must be there; nothing is
   * applied. Fails with {@link dev.once.SchemaMissingException} naming the first missing table.
   */
  public static void requirePresent(DataSource dataSource) {
    Schema.check(dataSource);
  }

  /** Applies what the schema's history does not record; a no-op on an up-to-date schema. */
  public static SchemaStatus apply(DataSource dataSource) {
    return Schema.apply(dataSource);
  }
}
