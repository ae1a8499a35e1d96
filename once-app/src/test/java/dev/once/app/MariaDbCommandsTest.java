package dev.once.app;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.once.test.TestDatabase;
import org.junit.jupiter.api.Test;

/** The commands run on MariaDB: schema, status, dead letters, the demo and its check, the bench. */
class MariaDbCommandsTest {

  @Test
  void schemaApplyStatusAndDeadLettersWorkOnAFreshMariaDbDatabase() {
    try (TestDatabase db = TestDatabase.empty("mariadb")) {
      String url = urlOf(db);

      Cli.Run applied = Cli.run("schema", "apply", "--db", url, "--schema", db.schema());
      Cli.Run status = Cli.run("status", "--db", url, "--schema", db.schema());
      Cli.Run dead = Cli.run("dead-letters", "list", "--db", url, "--schema", db.schema());

      assertThat(applied.exit()).as(applied.err()).isZero();
      assertThat(db.count("SELECT count(*) FROM once_relay_partition")).isEqualTo(4096);
      assertThat(status.exit()).as(status.err()).isZero();
      assertThat(status.out()).contains("outbox");
      assertThat(dead.exit()).as(dead.err()).isZero();
      assertThat(dead.out()).contains("0 dead letters");
    }
  }

  @Test
  void schemaPrintForMariaDbShowsItsTables() {
    Cli.Run r = Cli.run("schema", "print", "--dialect", "mariadb");
    assertThat(r.exit()).isZero();
    assertThat(r.out()).contains("CREATE TABLE once_relay_partition").contains("utf8mb4_bin");
  }

  @Test
  void theDemoRunsOnMariaDbAndItsCheckPasses() {
    try (TestDatabase db = TestDatabase.empty("mariadb")) {
      String url = urlOf(db);

      Cli.Run demo = Cli.run("demo", "--events", "200", "--db", url, "--schema", db.schema());
      Cli.Run check = Cli.run("check", "--db", url, "--schema", db.schema(), "--events", "200");

      assertThat(demo.exit()).as(demo.out() + demo.err()).isZero();
      assertThat(check.exit()).as(check.out() + check.err()).isZero();
      assertThat(db.count("SELECT count(*) FROM demo_orders")).isEqualTo(200);
    }
  }

  @Test
  void benchAndItsThreeCeilingsRunOnMariaDb() throws Exception {
    try (TestDatabase db = TestDatabase.empty("mariadb")) {
      Cli.Run r =
          Cli.run(
              "bench",
              "--events",
              "200",
              "--workers",
              "2",
              "--latency-producers",
              "4",
              "--latency-seconds",
              "1",
              "--latency-rate",
              "100",
              "--warmup",
              "50",
              "--json",
              "--db",
              urlOf(db));

      assertThat(r.exit()).as(r.err()).isZero();
      JsonNode json = new ObjectMapper().readTree(r.out());
      for (String field :
          new String[] {"once_eps", "ceiling_db_eps", "ceiling_broker_eps", "ceiling_c_eps"}) {
        assertThat(json.get(field).asDouble()).as(field).isPositive();
      }
      assertThat(json.get("duplicate_effects").asLong()).isZero();
      assertThat(json.get("effects").asLong()).isGreaterThanOrEqualTo(200);
      assertThat(json.get("database").asText()).startsWith("jdbc:mariadb:");
      // deadlocks (InnoDB locks the unpurged rows the warm-up's reset deleted) are run again
      assertThat(json.has("ceiling_a_rollbacks")).isTrue();
      assertThat(json.has("once_rollbacks")).isTrue();
      // every phase cleared what it wrote: no bench row is left for a relay or a receiver
      assertThat(db.count("SELECT count(*) FROM once_outbox WHERE sent_at IS NULL")).isZero();
      assertThat(db.count("SELECT count(*) FROM bench_c_outbox")).isZero();
    }
  }

  @Test
  void benchE2eAndItsCeilingsPAndCRunOnMariaDbWithoutASecondEffect() throws Exception {
    try (TestDatabase db = TestDatabase.empty("mariadb")) {
      Cli.Run r =
          Cli.run(
              "bench",
              "e2e",
              "--events",
              "200",
              "--workers",
              "2",
              "--latency-producers",
              "4",
              "--latency-seconds",
              "1",
              "--latency-rate",
              "100",
              "--json",
              "--db",
              urlOf(db));

      assertThat(r.exit()).as(r.err()).isZero();
      JsonNode json = new ObjectMapper().readTree(r.out());
      for (String field : new String[] {"e2e_eps", "ceiling_p_eps", "ceiling_c_eps", "p99_ms"}) {
        assertThat(json.get(field).asDouble()).as(field).isPositive();
      }
      assertThat(json.get("duplicate_effects").asLong()).isZero();
      assertThat(json.get("ceiling_c_duplicate_effects").asLong()).isZero();
      long orders = 200 + json.get("paced_events").asLong();
      assertThat(json.get("effects").asLong()).isEqualTo(orders * 2);
    }
  }

  /**
   * {@code once schema status} before and after {@code once schema apply}, and Flyway (as an
   * application's own, with Once's location and history table) then the CLI: each sees what the
   * other ran, so applying again changes nothing.
   */
  @Test
  void schemaStatusAndApplyShareTheHistoryWithFlyway() {
    try (TestDatabase db = TestDatabase.empty("mariadb")) {
      String url = urlOf(db);
      Cli.Run before = Cli.run("schema", "status", "--db", url, "--schema", db.schema());
      int migrated =
          org.flywaydb.core.Flyway.configure()
              .dataSource(db.dataSource())
              .locations("classpath:dev/once/schema/mariadb")
              .table("once_schema_history")
              .load()
              .migrate()
              .migrationsExecuted;
      Cli.Run applied = Cli.run("schema", "apply", "--db", url, "--schema", db.schema());
      Cli.Run after = Cli.run("schema", "status", "--db", url, "--schema", db.schema());

      assertThat(before.exit()).isEqualTo(1);
      int v = dev.once.Schema.expectedVersion(dev.once.jdbc.Dialects.mariadb()); // shipped last
      assertThat(before.out()).contains("applied   none").contains("expected  " + v);
      assertThat(migrated).isEqualTo(v);
      assertThat(applied.exit()).as(applied.err()).isZero();
      assertThat(applied.out()).contains("Once schema already at version " + v);
      assertThat(after.exit()).as(after.out()).isZero();
      assertThat(after.out())
          .contains("applied   " + v)
          .contains("state     up to date")
          .containsPattern("V1 +SQL +once ")
          .containsPattern("V2 +SQL +once suspect");
    }
  }

  /**
   * The URL of a database made without the Once tables ({@link TestDatabase#empty}), which the CLI
   * applies: cheaper on MariaDB, whose DDL is slow, than applying them and dropping them again.
   */
  static String urlOf(TestDatabase db) {
    return "jdbc:mariadb://127.0.0.1:3306/" + db.schema() + "?user=root";
  }
}
