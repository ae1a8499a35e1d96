package dev.once.spring.autoconfigure;

import dev.once.Schema;
import dev.once.SchemaStatus;
import dev.once.jdbc.Dialects;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.util.ClassUtils;

/**
 * Brings Once's schema to this Once's version before Once is built, recording each migration in
 * {@value Schema#HISTORY_TABLE} (Flyway's format, apart from the application's own history): with
 * {@link Schema#apply} ({@code once.schema.apply}), or with Flyway when it is on the classpath
 * ({@code once.schema.flyway}). Either sees what the other ran, so a service may switch between
 * them; both are no-ops on a schema that is up to date. With neither, the schema must be there
 * already (Once checks it, and its version, at start).
 */
public class OnceSchemaInitializer {
  public static final String HISTORY_TABLE = Schema.HISTORY_TABLE;
  private static final Logger log = LoggerFactory.getLogger(OnceSchemaInitializer.class);

  public OnceSchemaInitializer(DataSource dataSource, OnceProperties.Schema settings) {
    if (settings.isApply()) {
      int before = Schema.status(dataSource).appliedVersion();
      SchemaStatus after = Schema.apply(dataSource);
      log.info(
          "once: schema at version {} in '{}' (once.schema.apply=true; was {})",
          after.appliedVersion(),
          after.schema(),
          before);
    } else if (settings.isFlyway()
        && ClassUtils.isPresent("org.flywaydb.core.Flyway", getClass().getClassLoader())) {
      FlywayMigration.migrate(dataSource);
    }
  }

  /** Kept apart so that nothing of Flyway is loaded when it is absent. */
  private static final class FlywayMigration {
    static void migrate(DataSource dataSource) {
      Schema.baseline(dataSource); // a schema an earlier Once made without a history
      int applied =
          Flyway.configure()
              .dataSource(dataSource)
              .locations("classpath:" + Schema.location(Dialects.forDataSource(dataSource)))
              .table(HISTORY_TABLE)
              .load()
              .migrate()
              .migrationsExecuted;
      log.info(
          "once: schema migrated with Flyway ({} new migrations, history table {})",
          applied,
          HISTORY_TABLE);
    }
  }
}
