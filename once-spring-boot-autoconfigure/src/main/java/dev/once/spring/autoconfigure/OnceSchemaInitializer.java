package dev.once.spring.autoconfigure;

import dev.once.Schema;
import dev.once.spi.Dialects;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.util.ClassUtils;

/**
 * Applies Once's schema before Once is built: with Flyway when it is on the classpath ({@code
 * once.schema.flyway}, history table {@value #HISTORY_TABLE}, so Once's versions never collide with
 * the application's own migrations), or as plain idempotent SQL ({@code once.schema.apply}). With
 * neither, the schema must be there already (Once checks it and names the missing table).
 */
public class OnceSchemaInitializer {
  public static final String HISTORY_TABLE = "once_schema_history";
  private static final Logger log = LoggerFactory.getLogger(OnceSchemaInitializer.class);

  public OnceSchemaInitializer(DataSource dataSource, OnceProperties.Schema settings) {
    if (settings.isApply()) {
      Schema.apply(dataSource);
      log.info("once: schema applied (once.schema.apply=true)");
    } else if (settings.isFlyway()
        && ClassUtils.isPresent("org.flywaydb.core.Flyway", getClass().getClassLoader())) {
      FlywayMigration.migrate(dataSource);
    }
  }

  /** Kept apart so that nothing of Flyway is loaded when it is absent. */
  private static final class FlywayMigration {
    static void migrate(DataSource dataSource) {
      int applied =
          Flyway.configure()
              .dataSource(dataSource)
              .locations("classpath:" + Schema.location(Dialects.forDataSource(dataSource)))
              .table(HISTORY_TABLE)
              .baselineOnMigrate(true)
              .baselineVersion("0")
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
