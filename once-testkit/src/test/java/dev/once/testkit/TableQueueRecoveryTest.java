package dev.once.testkit;

import com.zaxxer.hikari.HikariDataSource;
import dev.once.tablequeue.TableQueueTransport;
import dev.once.test.TestDatabase;
import java.time.Duration;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** {@link RecoveryContract} on the table queue and the embedded PostgreSQL. */
class TableQueueRecoveryTest extends RecoveryContract {
  private static TestDatabase db;

  @BeforeAll
  static void database() {
    db = TestDatabase.embedded();
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
    return worker(db);
  }

  /** A process on {@code db}: its own pool, a table queue with a short visibility timeout. */
  static Worker worker(TestDatabase db) {
    HikariDataSource pool = db.newPool(4);
    TableQueueTransport transport =
        TableQueueTransport.builder(pool).visibilityTimeout(Duration.ofMillis(500)).build();
    return Worker.of(pool, transport);
  }
}
