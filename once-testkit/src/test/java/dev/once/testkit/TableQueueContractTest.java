package dev.once.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.once.spi.ConnectionUse;
import dev.once.spi.InDatabasePublish;
import dev.once.spi.QueueAdmin;
import dev.once.spi.Replay;
import dev.once.spi.Transport;
import dev.once.tablequeue.TableQueueTransport;
import dev.once.test.TestDatabase;
import java.time.Duration;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The table queue on PostgreSQL passes the transport contract. */
class TableQueueContractTest extends TransportContract {
  private TestDatabase db;
  private TableQueueTransport transport;

  @BeforeEach
  void open() {
    db = newDatabase();
    transport =
        TableQueueTransport.builder(db.dataSource())
            .visibilityTimeout(Duration.ofSeconds(1))
            .build();
  }

  /** The database under test: embedded PostgreSQL here. */
  TestDatabase newDatabase() {
    return TestDatabase.embedded();
  }

  @AfterEach
  void close() {
    if (transport != null) {
      transport.close();
    }
    if (db != null) {
      db.close();
    }
  }

  @Override
  protected Transport transport() {
    return transport;
  }

  @Override
  protected DataSource dataSource() {
    return db.dataSource();
  }

  @Override
  protected Duration redeliveryWait() {
    return Duration.ofSeconds(4);
  }

  @Test
  void hasItsCapabilities() {
    assertThat(TransportCapabilities.of(transport()))
        .containsExactlyInAnyOrder(
            InDatabasePublish.class,
            dev.once.spi.InDatabaseAck.class,
            Replay.class,
            QueueAdmin.class,
            ConnectionUse.class,
            dev.once.spi.KeyOrder.class);
  }
}
