package dev.once.rabbitmq;

import com.zaxxer.hikari.HikariDataSource;
import dev.once.test.TestDatabase;
import dev.once.testkit.RecoveryContract;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** {@link RecoveryContract} on RabbitMQ (a vhost of its own) and the embedded PostgreSQL. */
class RabbitRecoveryTest extends RecoveryContract {
  private static TestDatabase db;
  private static String vhost;

  @BeforeAll
  static void open() {
    vhost = Broker.newVhost();
  }

  @AfterAll
  static void drop() {
    if (db != null) {
      db.close();
      db = null;
    }
    Broker.deleteVhost(vhost);
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
    RabbitTransport transport =
        RabbitTransport.builder().uri(Broker.uri(vhost)).prefetch(32).build();
    return Worker.of(pool, transport);
  }
}
