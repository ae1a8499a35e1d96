package dev.once.kafka;

import com.zaxxer.hikari.HikariDataSource;
import dev.once.test.TestDatabase;
import dev.once.testkit.RecoveryContract;
import java.time.Duration;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;

/**
 * {@link RecoveryContract} on the in-process Kafka broker and the embedded PostgreSQL. A killed
 * process's consumer leaves the group with the record its worker was stuck on still in its hands:
 * the next owner gets that partition's open records flagged redelivered.
 */
class KafkaRecoveryTest extends RecoveryContract {
  private static TestDatabase db;

  @AfterAll
  static void drop() {
    if (db != null) {
      db.close();
      db = null;
    }
  }

  /** Each takeover fetches again what follows the poison: one batch of DUPLICATEs. */
  @Override
  protected int duplicateBatchesPerLife() {
    return 1;
  }

  /** The database under test: embedded PostgreSQL here. */
  TestDatabase newDatabase() {
    return TestDatabase.embedded();
  }

  @Override
  protected DataSource dataSource() {
    if (db == null) {
      db = newDatabase();
    }
    return db.dataSource();
  }

  @Override
  protected Worker newWorker() {
    dataSource();
    HikariDataSource pool = db.newPool(4);
    KafkaTransport transport =
        Broker.transport().partitions(1).revokeTimeout(Duration.ofMillis(200)).build();
    return Worker.of(pool, transport);
  }
}
