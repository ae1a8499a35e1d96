package dev.once.sqs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.once.spi.BrokerDeadLetters;
import dev.once.spi.PublishLimits;
import dev.once.spi.QueueAdmin;
import dev.once.spi.QueueOrder;
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

/** SQS standard queues pass the same transport and pipeline contract as the other transports. */
class SqsContractTest extends TransportContract {
  private TestDatabase db;
  private SqsTransport transport;

  /** Standard queues here; FIFO in the subclass. */
  SqsTransport.Builder configure(SqsTransport.Builder b) {
    return b;
  }

  @BeforeEach
  void open() {
    db = TestDatabase.embedded();
    transport = configure(Sqs.transport()).build();
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
    return Duration.ofSeconds(6);
  }

  /** SQS keeps no order on a standard queue (ElasticMQ may, SQS does not promise it). */
  @Override
  protected boolean keepsKeyOrder() {
    return transport.settings().fifo();
  }

  @Test
  void hasItsCapabilities() {
    assertThat(TransportCapabilities.of(transport()))
        .containsExactlyInAnyOrder(
            PublishLimits.class,
            Replay.class,
            QueueAdmin.class,
            RetentionCheck.class,
            BrokerDeadLetters.class,
            QueueOrder.class);
  }
}
