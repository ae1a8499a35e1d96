package dev.once.app.common;

import dev.once.Schema;
import dev.once.spi.Dialects;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;

/**
 * Applies the Once schema with Flyway, using a history table of its own so that it lives beside the
 * application's own Flyway history in the same schema. The location is the database's own ({@code
 * dev/once/schema/postgresql} or {@code dev/once/schema/mariadb}).
 */
public final class Migrations {
  public static final String HISTORY_TABLE = "once_schema_history";

  private Migrations() {}

  /**
   * For commands that only read (status, dead-letters, check): the tables must be there; nothing is
   * applied. Fails with {@link dev.once.SchemaMissingException} naming the first missing table.
   */
  public static void requirePresent(DataSource dataSource) {
    Schema.check(dataSource);
  }

  public static void apply(DataSource dataSource) {
    Flyway.configure()
        .dataSource(dataSource)
        .locations("classpath:" + Schema.location(Dialects.forDataSource(dataSource)))
        .table(HISTORY_TABLE)
        .baselineOnMigrate(true)
        .baselineVersion("0")
        .load()
        .migrate();
  }
}
