package dev.once.rabbitmq;

import static org.assertj.core.api.Assertions.assertThat;

import dev.once.spi.BrokerDeadLetters;
import dev.once.spi.DeliveryLimit;
import dev.once.spi.PublishLimits;
import dev.once.spi.QueueAdmin;
import dev.once.spi.QueueOrder;
import dev.once.spi.Replay;
import dev.once.spi.Transport;
import dev.once.test.TestDatabase;
import dev.once.testkit.TransportCapabilities;
import dev.once.testkit.TransportContract;
import java.time.Duration;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** RabbitMQ passes the same transport contract as the table queue. */
class RabbitContractTest extends TransportContract {
  private static String vhost;
  private TestDatabase db;
  private RabbitTransport transport;

  @BeforeAll
  static void vhost() {
    vhost = Broker.newVhost();
  }

  @AfterAll
  static void dropVhost() {
    Broker.deleteVhost(vhost);
  }

  @BeforeEach
  void open() {
    db = newDatabase();
    transport = RabbitTransport.builder().uri(Broker.uri(vhost)).build();
  }

  /** The database of the outbox and the inbox: embedded PostgreSQL here. */
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
    return Duration.ofSeconds(3);
  }

  @Test
  void hasItsCapabilities() {
    assertThat(TransportCapabilities.of(transport()))
        .containsExactlyInAnyOrder(
            PublishLimits.class,
            DeliveryLimit.class,
            Replay.class,
            QueueAdmin.class,
            BrokerDeadLetters.class,
            QueueOrder.class);
  }
}
