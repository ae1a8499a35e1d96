package dev.once.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.once.Schema;
import dev.once.SchemaStatus;
import dev.once.SchemaStatus.Applied;
import dev.once.internal.schema.SchemaFiles;
import dev.once.jdbc.Dialects;
import dev.once.test.TestDatabase;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

/**
 * A Boot service restarts any number of times whichever way applies Once's schema, and may switch
 * between them: {@code once.schema.apply=true}, Flyway ({@code once.schema.flyway}), {@code
 * Schema.apply} by hand, and a schema an earlier Once created without a history.
 */
class SchemaLifecycleStartTest {
  private static final AtomicInteger SCHEMAS = new AtomicInteger();
  private static final String APPLY = "once.schema.apply=true";
  private static final String FLYWAY = "once.schema.apply=false";

  private final String schema = newSchema();
  private final String url = TestDatabase.embeddedUrl() + "&currentSchema=" + schema;

  @Test
  void restartsAnyNumberOfTimesWithOnceSchemaApply() {
    for (int start = 0; start < 3; start++) {
      starts(APPLY);
    }
    assertRecordsEveryMigrationOnce();
  }

  @Test
  void schemaApplyByHandThenFlywayThenApplyAgain() {
    Schema.apply(dataSource());
    starts(FLYWAY);
    starts(APPLY);
    starts(FLYWAY);
    assertRecordsEveryMigrationOnce();
  }

  @Test
  void flywayFirstThenOnceSchemaApply() {
    starts(FLYWAY);
    starts(APPLY);
    assertRecordsEveryMigrationOnce();
  }

  @Test
  void flywayUpgradesASchemaAnEarlierOnceCreatedWithoutAHistory() {
    try (Connection c = DriverManager.getConnection(url);
        Statement s = c.createStatement()) {
      int version = 0;
      for (String text : Schema.migrations(Dialects.postgresql()).values()) {
        if (++version > 3) {
          break;
        }
        for (String statement : SchemaFiles.statements(text)) {
          s.execute(statement);
        }
      }
      s.execute("INSERT INTO once_inbox (consumer_id, event_id) VALUES ('shipping', 'order:1')");
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }

    starts(FLYWAY);

    SchemaStatus status = Schema.status(dataSource());
    assertThat(status.upToDate()).isTrue();
    assertThat(status.applied().get(0))
        .extracting(Applied::type, Applied::version)
        .containsExactly("BASELINE", 3);
    assertThat(status.applied()).extracting(Applied::type).containsOnly("BASELINE", "SQL");
    assertThat(status.applied()).hasSize(1 + status.expected() - 3);
  }

  @Test
  void aSchemaNewerThanThisOnceStopsTheStartSayingSo() {
    starts(APPLY);
    try (Connection c = DriverManager.getConnection(url);
        Statement s = c.createStatement()) {
      s.execute(
          "INSERT INTO once_schema_history (installed_rank, version, description, type, script,"
              + " checksum, installed_by, execution_time, success) VALUES (99, '99', 'future',"
              + " 'SQL', 'V99__future.sql', 1, 'x', 0, true)");
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
    for (String way : new String[] {APPLY, FLYWAY}) {
      runner(way)
          .run(
              ctx -> {
                assertThat(ctx).hasFailed();
                assertThat(FailureReport.of(ctx.getStartupFailure()))
                    .as(way)
                    .contains("is at version 99, newer than this Once, which knows versions up to")
                    .contains("Deploy the Once version that migrated this schema");
              });
    }
  }

  @Test
  void onceSchemaApplyCreatesTheSchemaTheUrlNamesWhenItDoesNotExistYet() {
    String missing = "life_new_" + ProcessHandle.current().pid() + "_" + SCHEMAS.incrementAndGet();
    String missingUrl = TestDatabase.embeddedUrl() + "&currentSchema=" + missing;
    long start = System.nanoTime();

    runner(APPLY, missingUrl).run(ctx -> assertThat(ctx).hasNotFailed());

    assertThat(java.time.Duration.ofNanos(System.nanoTime() - start))
        .isLessThan(java.time.Duration.ofSeconds(30));
    SchemaStatus status = Schema.status(new DriverManagerDataSource(missingUrl));
    assertThat(status.schema()).isEqualTo(missing);
    assertThat(status.upToDate()).isTrue();
  }

  @Test
  void withoutSchemaApplyAMissingSchemaStopsTheStartNamingIt() {
    String missing = "life_none_" + ProcessHandle.current().pid() + "_" + SCHEMAS.incrementAndGet();
    String missingUrl = TestDatabase.embeddedUrl() + "&currentSchema=" + missing;

    runner("once.schema.apply=false", missingUrl, "once.schema.flyway=false")
        .run(
            ctx -> {
              assertThat(ctx).hasFailed();
              assertThat(FailureReport.of(ctx.getStartupFailure()))
                  .contains("schema '" + missing + "'")
                  .contains("does not exist in database 'postgres'")
                  .contains("CREATE SCHEMA");
            });
  }

  private void assertRecordsEveryMigrationOnce() {
    SchemaStatus status = Schema.status(dataSource());
    assertThat(status.upToDate()).isTrue();
    assertThat(status.applied()).extracting(Applied::type).containsOnly("SQL");
    assertThat(status.applied()).hasSize(status.expected());
  }

  private void starts(String way) {
    runner(way).run(ctx -> assertThat(ctx).as(way).hasNotFailed());
  }

  private ApplicationContextRunner runner(String way) {
    return runner(way, url);
  }

  private static ApplicationContextRunner runner(String way, String url, String... more) {
    return new ApplicationContextRunner()
        .withConfiguration(
            AutoConfigurations.of(
                DataSourceAutoConfiguration.class,
                DataSourceTransactionManagerAutoConfiguration.class,
                OnceAutoConfiguration.class))
        .withPropertyValues(
            "spring.datasource.url=" + url,
            "spring.datasource.hikari.maximum-pool-size=4",
            "once.destinations=orders",
            way)
        .withPropertyValues(more);
  }

  private DriverManagerDataSource dataSource() {
    return new DriverManagerDataSource(url);
  }

  private static String newSchema() {
    String name = "life_" + ProcessHandle.current().pid() + "_" + SCHEMAS.incrementAndGet();
    try (Connection c = DriverManager.getConnection(TestDatabase.embeddedUrl());
        Statement s = c.createStatement()) {
      s.execute("CREATE SCHEMA " + name);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
    return name;
  }
}
