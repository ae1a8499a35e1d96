package dev.once.dashboard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.GetResponse;
import dev.once.rabbitmq.RabbitTransport;
import dev.once.test.Services;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** What RabbitMQ dead-lettered itself for a consumer shows in the overview beside Once's own. */
class BrokerDeadLettersOverviewTest {
  private static final String URI = "amqp://guest:guest@127.0.0.1:5672";

  @Test
  void aMessageRejectedIntoTheGroupsDeadLetterQueueIsCountedInTheOverview() throws Exception {
    requireBroker();
    String prefix = "dashboard-" + ProcessHandle.current().pid() + "-" + System.nanoTime() + ".";
    ConnectionFactory factory = new ConnectionFactory();
    factory.setUri(URI);
    try (RabbitTransport rabbit = RabbitTransport.builder().uri(URI).namePrefix(prefix).build();
        Rig rig = new Rig((r, b) -> b.transport(rabbit, Map.of("warehouse", "orders")));
        Connection raw = factory.newConnection();
        Channel ch = raw.createChannel()) {
      String queue = rabbit.queueName("orders", "warehouse");
      try {
        rig.seedDeadLetters(1);
        rig.dashboard.sampleNow();
        Client client = new Client(rig.url());
        rabbit.declare("orders", "warehouse");
        await() // read in the background, every sample
            .atMost(Duration.ofSeconds(10))
            .ignoreExceptions()
            .untilAsserted(() -> assertThat(brokerDeadLetters(client)).isEqualTo(0));

        ch.basicPublish(
            rabbit.exchangeName("orders"),
            "k",
            new AMQP.BasicProperties.Builder().messageId("m:1").type("T").build(),
            "{}".getBytes());
        await().atMost(Duration.ofSeconds(10)).until(() -> ch.messageCount(queue) == 1);
        GetResponse got = ch.basicGet(queue, false);
        ch.basicReject(got.getEnvelope().getDeliveryTag(), false);

        await()
            .atMost(Duration.ofSeconds(10))
            .untilAsserted(() -> assertThat(brokerDeadLetters(client)).isEqualTo(1));
        assertThat(
                client.get("api/overview").json().get("consumers").get(0).get("dead_open").asLong())
            .as("Once's own dead letters are counted apart")
            .isEqualTo(1);
      } finally {
        ch.queueDelete(queue + ".dead-letter");
        ch.queueDelete(queue);
        ch.exchangeDelete(rabbit.exchangeName("orders"));
        ch.exchangeDelete(prefix + "once.dead-letter");
      }
    }
  }

  private static long brokerDeadLetters(Client client) {
    var n = client.get("api/overview").json().get("consumers").get(0).get("broker_dead_letters");
    assertThat(n.isIntegralNumber()).as("broker_dead_letters is a count: " + n).isTrue();
    return n.asLong();
  }

  private static void requireBroker() {
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress("127.0.0.1", 5672), 1_000);
    } catch (IOException e) {
      Services.unavailable(
          "RabbitMQ",
          "127.0.0.1:5672",
          e,
          "rabbitmq-server -detached && rabbitmqctl await_startup");
    }
  }
}
