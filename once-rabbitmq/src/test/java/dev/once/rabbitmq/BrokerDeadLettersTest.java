package dev.once.rabbitmq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.GetResponse;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** What RabbitMQ dead-letters on its own (rejects, the delivery limit) is counted, not hidden. */
class BrokerDeadLettersTest {
  private static String vhost;

  @BeforeAll
  static void vhost() {
    vhost = Broker.newVhost();
  }

  @AfterAll
  static void dropVhost() {
    Broker.deleteVhost(vhost);
  }

  @Test
  void aMessageRejectedToTheGroupsDeadLetterQueueIsCountedByTheTransport() throws Exception {
    try (RabbitTransport transport = RabbitTransport.create(Broker.uri(vhost))) {
      assertThat(transport.brokerDeadLetters("orders", "warehouse")).hasValue(0);
      transport.declare("orders", "warehouse");
      ConnectionFactory factory = new ConnectionFactory();
      factory.setUri(Broker.uri(vhost));
      try (Connection raw = factory.newConnection();
          Channel ch = raw.createChannel()) {
        ch.basicPublish(
            transport.exchangeName("orders"),
            "k",
            new AMQP.BasicProperties.Builder().messageId("m:1").type("T").build(),
            "{}".getBytes());
        String queue = transport.queueName("orders", "warehouse");
        await().atMost(Duration.ofSeconds(10)).until(() -> ch.messageCount(queue) == 1);
        GetResponse got = ch.basicGet(queue, false);
        ch.basicReject(got.getEnvelope().getDeliveryTag(), false);
      }
      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> transport.brokerDeadLetters("orders", "warehouse").getAsLong() == 1);
    }
  }
}
