package dev.once.rabbitmq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.once.Event;
import dev.once.EventId;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A closed transport opens nothing again. A relay or consumer thread that outlives {@code close()}
 * (a worker of a killed process whose handler returns late) used to reconnect: a connection nobody
 * closes, recovering for the rest of the JVM's life, logging an ERROR at every try once its vhost
 * was deleted.
 */
class TransportCloseTest {
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
  void aThreadThatOutlivesCloseGetsAnErrorNotANewConnection() {
    RabbitTransport transport = RabbitTransport.create(Broker.uri(vhost));
    transport.declare("orders", "warehouse");
    transport.receiver("orders", "warehouse").close();
    transport.close();

    assertThatThrownBy(() -> transport.receiver("orders", "warehouse"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("the RabbitMQ transport is closed");
    Event event = Event.of(EventId.of("order-paid", 1), "orders", "k", "OrderPaid", "{}");
    assertThatThrownBy(() -> transport.publish(List.of(event), Duration.ofSeconds(5)))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("the RabbitMQ transport is closed");
    assertThatThrownBy(() -> transport.reader("orders", "warehouse"))
        .isInstanceOf(IllegalStateException.class);
    await()
        .atMost(Duration.ofSeconds(20))
        .untilAsserted(() -> assertThat(connections()).as("connections into " + vhost).isEmpty());
  }

  private static List<String> connections() {
    return Broker.ctl("list_connections", "-q", "--no-table-headers", "vhost", "name")
        .lines()
        .filter(line -> line.startsWith(vhost + "\t"))
        .toList();
  }
}
