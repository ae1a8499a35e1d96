package dev.once.app;

import static org.assertj.core.api.Assertions.assertThat;

import dev.once.test.TestDatabase;
import org.junit.jupiter.api.Test;

/** The commands that only use Once's API run on MariaDB; the scenario's commands refuse it. */
class MariaDbCommandsTest {

  @Test
  void schemaApplyStatusAndDeadLettersWorkOnAFreshMariaDbDatabase() {
    try (TestDatabase db = TestDatabase.mariadb()) {
      String url = emptied(db);

      Cli.Run applied = Cli.run("schema", "apply", "--db", url);
      Cli.Run status = Cli.run("status", "--db", url);
      Cli.Run dead = Cli.run("dead-letters", "list", "--db", url);

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
    try (TestDatabase db = TestDatabase.mariadb()) {
      String url = emptied(db);

      Cli.Run demo = Cli.run("demo", "--events", "200", "--db", url, "--schema", db.schema());
      Cli.Run check = Cli.run("check", "--db", url, "--schema", db.schema(), "--events", "200");

      assertThat(demo.exit()).as(demo.out() + demo.err()).isZero();
      assertThat(check.exit()).as(check.out() + check.err()).isZero();
      assertThat(db.count("SELECT count(*) FROM demo_orders")).isEqualTo(200);
    }
  }

  /** The test database without the Once tables (the CLI applies them with Flyway); its URL. */
  private static String emptied(TestDatabase db) {
    db.execute(
        "DROP TABLE once_outbox, once_inbox, once_relay_partition, once_queue_binding,"
            + " once_queue, once_operation, once_attempt, once_dead_letter,"
            + " once_dead_letter_action, once_version");
    return "jdbc:mariadb://127.0.0.1:3306/" + db.schema() + "?user=root";
  }
}
