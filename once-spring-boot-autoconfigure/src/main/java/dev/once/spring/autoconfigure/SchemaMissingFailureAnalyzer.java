package dev.once.spring.autoconfigure;

import dev.once.SchemaMissingException;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Once's tables (or the schema itself) are missing at start: say which, and the {@code
 * once.schema.*} ways to fix it (each creates a PostgreSQL schema the URL names when the role may).
 */
class SchemaMissingFailureAnalyzer extends AbstractFailureAnalyzer<SchemaMissingException> {

  @Override
  protected FailureAnalysis analyze(Throwable rootFailure, SchemaMissingException cause) {
    String description =
        cause.table() == null
            ? "The application's DataSource works in no schema that exists: "
                + cause.getMessage()
                + "."
            : "Once's table "
                + cause.table()
                + " is missing from schema '"
                + cause.schema()
                + "' of the application's DataSource.";
    return new FailureAnalysis(
        description,
        """
        Let Once apply its schema when the application starts, with one of:

            - Flyway on the classpath (org.flywaydb:flyway-core, with flyway-database-postgresql \
        or flyway-mysql): Once migrates its own tables, history table once_schema_history \
        (once.schema.flyway=true, the default)
            - once.schema.apply=true, without Flyway

        or apply the files of classpath:dev/once/schema/<database> with your own migrations \
        before the application starts.""",
        cause);
  }
}
