package dev.once.internal.schema;

import dev.once.SchemaMissingException;
import dev.once.StoreException;
import dev.once.jdbc.Dialect;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import javax.sql.DataSource;

/** What {@code build()} and {@code Schema.check} require of the schema before Once runs on it. */
public final class SchemaCheck {
  private SchemaCheck() {}

  /** Tables that must exist for Once to run. */
  private static final List<String> REQUIRED_TABLES =
      List.of(
          "once_outbox",
          "once_inbox",
          "once_queue",
          "once_queue_binding",
          "once_operation",
          "once_attempt",
          "once_suspect",
          "once_dead_letter",
          "once_dead_letter_action",
          "once_version");

  /**
   * Fails with {@link dev.once.SchemaVersionException} when the schema's history records another
   * version than this Once's, or with {@link SchemaMissingException} naming the first missing
   * table.
   */
  public static void require(DataSource dataSource, Dialect dialect) {
    try (Connection c = dataSource.getConnection()) {
      SchemaPlace.require(c, dialect);
      SchemaHistory.requireCurrent(c, dialect);
      for (String table : REQUIRED_TABLES) {
        if (!dialect.status().tableExists(c, table)) {
          throw SchemaMissingException.tableNotFound(
              table, dialect.status().currentSchema(c), dialect.status().schemaNote());
        }
      }
    } catch (SQLException e) {
      throw new StoreException("check the Once schema", e);
    }
  }
}
