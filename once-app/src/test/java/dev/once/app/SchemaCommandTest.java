package dev.once.app;

import static org.assertj.core.api.Assertions.assertThat;

import dev.once.Schema;
import dev.once.jdbc.Dialects;
import dev.once.test.TestDatabase;
import org.junit.jupiter.api.Test;

/**
 * {@code once schema apply} and {@code status} on PostgreSQL: applying twice is a no-op, the status
 * prints the applied and the expected versions, and a schema newer than this Once is named so.
 */
class SchemaCommandTest {

  @Test
  void applyTwiceThenStatusPrintsAppliedAndExpectedVersions() {
    try (TestDatabase db = TestDatabase.empty("embedded")) {
      String url = TestDatabase.embeddedUrl() + "&currentSchema=" + db.schema();
      int v = Schema.expectedVersion(Dialects.postgresql()); // the shipped migrations' last
      int future = v + 1;

      Cli.Run before = Cli.run("schema", "status", "--db", url, "--schema", db.schema());
      Cli.Run first = Cli.run("schema", "apply", "--db", url, "--schema", db.schema());
      Cli.Run second = Cli.run("schema", "apply", "--db", url, "--schema", db.schema());
      Cli.Run status = Cli.run("schema", "status", "--db", url, "--schema", db.schema());

      assertThat(before.exit()).isEqualTo(1);
      assertThat(before.out()).contains("applied   none").contains("expected  " + v);
      assertThat(first.out())
          .contains("Once schema applied: version 0 -> " + v + " in '" + db.schema());
      assertThat(second.exit()).as(second.err()).isZero();
      assertThat(second.out()).contains("Once schema already at version " + v);
      assertThat(status.exit()).as(status.out()).isZero();
      assertThat(status.out())
          .contains("applied   " + v)
          .contains("expected  " + v)
          .contains("state     up to date")
          .containsPattern("V5 +SQL +once suspect");

      db.execute(
          "INSERT INTO once_schema_history (installed_rank, version, description, type, script,"
              + " checksum, installed_by, execution_time, success) VALUES ("
              + future
              + ", '"
              + future
              + "', 'future', 'SQL', 'V"
              + future
              + "__future.sql', 1, 'x', 0, true)");
      Cli.Run newer = Cli.run("schema", "status", "--db", url, "--schema", db.schema());
      Cli.Run refused = Cli.run("schema", "apply", "--db", url, "--schema", db.schema());

      assertThat(newer.exit()).isEqualTo(1);
      assertThat(newer.out()).contains("applied   " + future).contains("NEWER than this Once");
      assertThat(refused.exit()).isNotZero();
      assertThat(refused.err()).contains("is at version " + future + ", newer than this Once");
    }
  }
}
