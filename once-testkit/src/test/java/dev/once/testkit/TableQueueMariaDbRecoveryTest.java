package dev.once.testkit;

import dev.once.test.TestDatabase;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** {@link RecoveryContract} on the table queue and the local MariaDB. */
class TableQueueMariaDbRecoveryTest extends RecoveryContract {
  private static TestDatabase db;

  @BeforeAll
  static void database() {
    db = TestDatabase.mariadb();
  }

  @AfterAll
  static void drop() {
    db.close();
  }

  @Override
  protected DataSource dataSource() {
    return db.dataSource();
  }

  @Override
  protected Worker newWorker() {
    return TableQueueRecoveryTest.worker(db);
  }
}
