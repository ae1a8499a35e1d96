package dev.once;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.once.tablequeue.TableQueueTransport;
import dev.once.test.TestDatabase;
import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.mariadb.jdbc.MariaDbDataSource;

/**
 * A JDBC URL whose schema does not exist yet (a newcomer's first run): {@link Schema#apply} creates
 * it when the role may, and otherwise every entry point names the schema — never the database — at
 * once, with how to create it, instead of waiting for a lock that no one holds.
 */
class MissingSchemaTest {
  private static final Duration AT_ONCE = Duration.ofSeconds(5);
  private static final AtomicInteger roles = new AtomicInteger();

  @ParameterizedTest
  @ValueSource(strings = {"embedded", "local"})
  void applyCreatesTheSchemaTheUrlNamesWhenTheRoleMay(String kind) {
    try (TestDatabase db = TestDatabase.empty(kind)) {
      db.execute("DROP SCHEMA " + db.schema());
      long start = System.nanoTime();

      SchemaStatus status = Schema.apply(db.dataSource());

      assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(AT_ONCE);
      assertThat(status.upToDate()).isTrue();
      assertThat(status.schema()).isEqualTo(db.schema());
      assertThat(
              db.count(
                  "SELECT count(*) FROM information_schema.tables"
                      + " WHERE table_schema = ? AND table_name = 'once_outbox'",
                  db.schema()))
          .isEqualTo(1);
      Schema.check(db.dataSource());
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"embedded", "local"})
  void buildAndCheckNameTheMissingSchemaNotTheDatabase(String kind) {
    try (TestDatabase db = TestDatabase.empty(kind)) {
      db.execute("DROP SCHEMA " + db.schema());
      String database = kind.equals("embedded") ? "postgres" : "test";

      for (Runnable entry :
          new Runnable[] {
            () -> Schema.check(db.dataSource()),
            () ->
                Once.builder()
                    .dataSource(db.dataSource())
                    .transport(TableQueueTransport.create(db.dataSource()))
                    .build()
          }) {
        long start = System.nanoTime();
        assertThatThrownBy(entry::run)
            .isInstanceOfSatisfying(
                SchemaMissingException.class,
                e -> {
                  assertThat(e.schema()).isEqualTo(db.schema());
                  assertThat(e.table()).isNull();
                })
            .hasMessageContaining("schema '" + db.schema() + "'")
            .hasMessageContaining("does not exist in database '" + database + "'")
            .hasMessageContaining("CREATE SCHEMA \"" + db.schema() + "\"")
            .hasMessageNotContaining("schema '" + database + "'");
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(AT_ONCE);
      }
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"embedded", "local"})
  void statusOfAMissingSchemaNamesItWithNothingApplied(String kind) {
    try (TestDatabase db = TestDatabase.empty(kind)) {
      db.execute("DROP SCHEMA " + db.schema());

      SchemaStatus status = Schema.status(db.dataSource());

      assertThat(status.schema()).isEqualTo(db.schema());
      assertThat(status.recorded()).isFalse();
      assertThat(status.appliedVersion()).isZero();
    }
  }

  @Test
  void applyWithoutThePrivilegeNamesTheSchemaAndThePrivilegeAtOnce() {
    try (TestDatabase db = TestDatabase.empty("embedded")) {
      db.execute("DROP SCHEMA " + db.schema());
      String role =
          "once_newcomer_" + ProcessHandle.current().pid() + "_" + roles.incrementAndGet();
      db.execute("CREATE ROLE " + role + " LOGIN");
      try (HikariDataSource asRole = pool(db.jdbcUrl().replace("user=postgres", "user=" + role))) {
        long start = System.nanoTime();

        assertThatThrownBy(() -> Schema.apply(asRole))
            .isInstanceOf(SchemaMissingException.class)
            .hasMessageContaining("schema '" + db.schema() + "'")
            .hasMessageContaining("role '" + role + "' may not create it")
            .hasMessageContaining("it needs CREATE on database 'postgres'")
            .hasMessageContaining("CREATE SCHEMA \"" + db.schema() + "\" AUTHORIZATION " + role);
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(AT_ONCE);
        assertThat(db.count("SELECT count(*) FROM pg_namespace WHERE nspname = ?", db.schema()))
            .isZero();
      } finally {
        db.execute("DROP ROLE " + role);
      }
    }
  }

  @Test
  void onMariaDbAConnectionWithoutADatabaseIsToldTheDatabaseIsTheSchema() {
    try (TestDatabase db = TestDatabase.empty("mariadb");
        HikariDataSource noDatabase = pool(db.jdbcUrl().replace("/" + db.schema() + "?", "/?"))) {
      long start = System.nanoTime();

      assertThatThrownBy(() -> Schema.apply(noDatabase))
          .isInstanceOf(SchemaMissingException.class)
          .hasMessageContaining("on MariaDB/MySQL the database is the schema")
          .hasMessageContaining("CREATE DATABASE");
      assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(AT_ONCE);
    }
  }

  @Test
  void onMariaDbAMissingTableSaysTheDatabaseIsTheSchema() {
    try (TestDatabase db = TestDatabase.empty("mariadb")) {
      assertThatThrownBy(() -> Schema.check(db.dataSource()))
          .isInstanceOf(SchemaMissingException.class)
          .hasMessageContaining(
              "not found in schema '"
                  + db.schema()
                  + "' (on MariaDB/MySQL the database is the schema)");
    }
  }

  @Test
  void onMariaDbADatabaseThatDoesNotExistIsNamedAsTheDatabase() {
    try (TestDatabase db = TestDatabase.empty("mariadb")) {
      db.execute("DROP DATABASE " + db.schema());
      try {
        MariaDbDataSource missing = new MariaDbDataSource(db.jdbcUrl());
        long start = System.nanoTime();

        assertThatThrownBy(() -> Schema.apply(missing))
            .hasMessageContaining("database '" + db.schema() + "'")
            .hasMessageContaining("CREATE DATABASE " + db.schema());
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(AT_ONCE);
      } catch (SQLException e) {
        throw new IllegalStateException(e);
      }
    }
  }

  private static HikariDataSource pool(String url) {
    HikariConfig cfg = new HikariConfig();
    cfg.setJdbcUrl(url);
    cfg.setMaximumPoolSize(2);
    return new HikariDataSource(cfg);
  }
}
