package dev.once.rabbitmq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.once.Event;
import dev.once.EventId;
import dev.once.spi.Delivery;
import dev.once.spi.PublishResult;
import dev.once.spi.Receiver;
import dev.once.test.FaultRun;
import dev.once.test.LogLines;
import dev.once.test.RabbitVhosts;
import dev.once.testkit.TcpProxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The broker drops both of the transport's connections and refuses them for a while (here: its
 * vhost is deleted and made again): one WARN when each is lost and one INFO when the client has
 * recovered it, not the client's ERROR with a stack trace at every try (ClientOutages). A
 * connection cut again while the client recovers its consumers is the same outage, not the client's
 * "Caught an exception when recovering topology" ERROR.
 */
class BrokerOutageLogTest {
  /** A basic.consume method frame's class and method ids (60, 20). */
  private static final byte[] BASIC_CONSUME = {0x00, 0x3C, 0x00, 0x14};

  @Test
  void aConnectionLostAndRefusedForAWhileIsOneWarnAndOneInfo() {
    String vhost = Broker.newVhost();
    try (RabbitTransport transport =
        RabbitTransport.builder()
            .uri(Broker.uri(vhost))
            .recoveryBackoff(Duration.ofMillis(100), Duration.ofMillis(400))
            .build()) {
      transport.declare("orders", "warehouse");
      assertThat(publish(transport).isConfirmed(0)).as("published before the outage").isTrue();
      transport.reader("orders", "warehouse").close(); // opens the consuming connection
      try (LogLines log = LogLines.capture()) {
        Broker.ctl("delete_vhost", vhost); // closes both connections; recovery is refused until...
        FaultRun.sleep(Duration.ofSeconds(2)); // tries every 100-400 ms, each refused
        RabbitVhosts.create(vhost);
        await()
            .atMost(Duration.ofSeconds(30))
            .untilAsserted(() -> assertThat(log.matching("works again")).hasSize(2));

        String all = String.join("\n", log.matching(""));
        assertThat(log.matching(" ERROR ")).as("ERROR lines in:\n" + all).isEmpty();
        assertThat(log.matching("\tat ")).as("stack trace lines").isEmpty();
        assertThat(warnings(log))
            .as("warnings")
            .hasSize(2)
            .allMatch(l -> l.contains("RabbitMQ connection once-") && l.contains(" lost: "));
        assertThat(log.matching(" INFO ")).as("infos").hasSize(2);
      }
    } finally {
      Broker.deleteVhost(vhost);
    }
  }

  @Test
  void aConnectionCutAgainWhileItsConsumerIsRecoveredIsStillOneWarnAndOneInfo() throws Exception {
    String vhost = Broker.newVhost();
    try (TcpProxy proxy = TcpProxy.to("127.0.0.1", 5672);
        RabbitTransport transport =
            RabbitTransport.builder()
                .uri(Broker.uri(proxy.port(), vhost))
                .recoveryBackoff(Duration.ofMillis(100), Duration.ofMillis(400))
                .build()) {
      transport.declare("orders", "warehouse");
      try (Receiver receiver = transport.receiver("orders", "warehouse");
          LogLines log = LogLines.capture()) {
        // the consumer's recovery (its basic.consume) meets a second cut
        proxy.cutWhenClientSends(BASIC_CONSUME, 1);
        int cut = proxy.cut(); // both connections: the publisher's and the consumer's
        await()
            .atMost(Duration.ofSeconds(30))
            .untilAsserted(() -> assertThat(log.matching("works again")).hasSize(cut));
        assertThat(proxy.armedCutsDone()).as("cuts during the consumer's recovery").isEqualTo(1);
        assertThat(publish(transport).isConfirmed(0)).as("published after the outage").isTrue();
        assertThat(receive(receiver)).as("the recovered consumer receives").hasSize(1);

        String all = String.join("\n", log.matching(""));
        assertThat(log.matching(" ERROR ")).as("ERROR lines in:\n" + all).isEmpty();
        assertThat(log.matching("\tat ")).as("stack trace lines in:\n" + all).isEmpty();
        assertThat(warnings(log))
            .as("warnings: one per connection cut")
            .hasSize(cut)
            .allMatch(l -> l.contains("RabbitMQ connection once-") && l.contains(" lost: "));
        assertThat(log.matching(" INFO ")).as("infos in:\n" + all).hasSize(cut);
      }
    } finally {
      Broker.deleteVhost(vhost);
    }
  }

  /**
   * The WARN lines but the client's "Consumer dispatcher for channel didn't shutdown": that one is
   * about a connection of an earlier test in this JVM whose handler was still blocked when it
   * closed, not a line of this outage.
   */
  private static List<String> warnings(LogLines log) {
    return log.matching(" WARN ").stream()
        .filter(l -> !l.contains("Consumer dispatcher for channel didn't shutdown"))
        .toList();
  }

  private static List<Delivery> receive(Receiver receiver) throws InterruptedException {
    List<Delivery> got = new ArrayList<>();
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (got.isEmpty() && System.nanoTime() < deadline) {
      got.addAll(receiver.poll(10, Duration.ofMillis(200)));
    }
    receiver.ack(got);
    return got;
  }

  private static PublishResult publish(RabbitTransport transport) {
    Event e = Event.of(EventId.of("order-paid", 1), "orders", "k", "OrderPaid", "{}");
    return transport.publish(List.of(e), Duration.ofSeconds(10));
  }
}
