package dev.once.testkit;

import dev.once.spi.Transport;
import dev.once.tablequeue.TableQueueTransport;
import dev.once.test.TestDatabase;
import java.time.Duration;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/** The table queue passes the transport contract. */
class TableQueueContractTest extends TransportContract {
  private TestDatabase db;
  private TableQueueTransport transport;

  @BeforeEach
  void open() {
    db = TestDatabase.embedded();
    transport =
        TableQueueTransport.builder(db.dataSource())
            .visibilityTimeout(Duration.ofSeconds(1))
            .build();
  }

  @AfterEach
  void close() {
    transport.close();
    db.close();
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
}
