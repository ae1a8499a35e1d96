package dev.once.bench.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.once.test.TestDatabase;
import org.junit.jupiter.api.Test;

/** The duplicate-effect count every bench prints is read from the effect tables themselves. */
class BenchTablesTest {

  @Test
  void duplicateEffectsAreTheRowsBeyondOnePerEventId() {
    try (TestDatabase db = TestDatabase.local()) {
      BenchTables.run(
          db.dataSource(),
          """
          CREATE TABLE fx (order_id bigint NOT NULL, event_id text NOT NULL);
          INSERT INTO fx VALUES (1, 'a'), (2, 'b'), (2, 'b'), (3, 'c'), (3, 'c'), (3, 'c');
          """);
      assertThat(BenchTables.duplicates(db.dataSource(), "fx")).isEqualTo(3);
      BenchTables.run(db.dataSource(), "DELETE FROM fx WHERE order_id > 1");
      assertThat(BenchTables.duplicates(db.dataSource(), "fx")).isZero();
    }
  }
}
