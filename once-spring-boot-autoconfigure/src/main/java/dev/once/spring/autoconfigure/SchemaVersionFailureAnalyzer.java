package dev.once.spring.autoconfigure;

import dev.once.SchemaVersionException;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Once's schema is at another version than this Once: say which, and what to do in a Boot service.
 */
class SchemaVersionFailureAnalyzer extends AbstractFailureAnalyzer<SchemaVersionException> {

  @Override
  protected FailureAnalysis analyze(Throwable rootFailure, SchemaVersionException cause) {
    return switch (cause.reason()) {
      case NEWER ->
          new FailureAnalysis(
              "Once's schema in '"
                  + cause.schema()
                  + "' is at version "
                  + cause.applied()
                  + ", newer than this Once, which knows versions up to "
                  + cause.expected()
                  + ": a newer Once migrated it.",
              "Deploy the Once version that migrated this schema (or a newer one), or point the"
                  + " application at another schema. Once never downgrades a schema.",
              cause);
      case OLDER ->
          new FailureAnalysis(
              "Once's schema in '"
                  + cause.schema()
                  + "' is at version "
                  + cause.applied()
                  + "; this Once needs version "
                  + cause.expected()
                  + ".",
              "Let Once migrate its schema at start: keep once.schema.flyway=true (the default)"
                  + " with Flyway on the classpath, or set once.schema.apply=true; or apply the"
                  + " pending migrations with your own tool before the application starts.",
              cause);
      case DAMAGED ->
          new FailureAnalysis(
              cause.getMessage() + ".",
              "Repair the schema as described, then start the application again.",
              cause);
    };
  }
}
