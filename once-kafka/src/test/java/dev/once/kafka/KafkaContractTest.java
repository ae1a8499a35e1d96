package dev.once.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import dev.once.spi.KeyOrder;
import dev.once.spi.QueueAdmin;
import dev.once.spi.Replay;
import dev.once.spi.RetentionCheck;
import dev.once.spi.Transport;
import dev.once.test.TestDatabase;
import dev.once.testkit.TransportCapabilities;
import dev.once.testkit.TransportContract;
import java.time.Duration;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Kafka passes the same transport and pipeline contract as the table queue and RabbitMQ. */
class KafkaContractTest extends TransportContract {
  private TestDatabase db;
  private KafkaTransport transport;

  @BeforeEach
  void open() {
    db = TestDatabase.embedded();
    transport = Broker.transport().build();
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
    return Duration.ofSeconds(5);
  }

  @Test
  void hasItsCapabilities() {
    assertThat(TransportCapabilities.of(transport()))
        .containsExactlyInAnyOrder(
            Replay.class, QueueAdmin.class, RetentionCheck.class, KeyOrder.class);
  }
}
