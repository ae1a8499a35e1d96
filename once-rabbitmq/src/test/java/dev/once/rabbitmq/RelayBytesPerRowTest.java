package dev.once.rabbitmq;

import static org.assertj.core.api.Assertions.assertThat;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import dev.once.Event;
import dev.once.EventId;
import dev.once.Once;
import dev.once.Relay;
import dev.once.test.TestDatabase;
import java.lang.management.ManagementFactory;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The bytes the relay thread allocates per row it publishes to RabbitMQ, warm, in batches of 20: a
 * count of the code path (the JVM's own allocation counter for the thread), not a timing, so it
 * holds on a loaded machine. Each message's properties were built through the client's builder,
 * which copies the header map into a new hash map behind an unmodifiable view that the client then
 * walks twice; every claimed row's empty {@code headers} array was parsed into a {@code PgArray}
 * with a lock of its own; a batch's result walked the key set of its empty failures; every claimed
 * row's id, key and type went through a {@code LinkedHashMap}: 4 171 bytes per row then, 3 439 now
 * (docs/PERFORMANCE.md, "What Once's RabbitMQ relay allocates per row").
 */
class RelayBytesPerRowTest {
  private static final int BATCH = 20;
  private static final int WARM = 600;
  private static final int MEASURED = 200;

  /** Between the 3 439 bytes per row measured with the cuts and the 4 171 without them. */
  private static final long BOUND = 3_800;

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
  void aWarmRelayAllocatesUnderTheBoundPerRowItPublishes() throws Exception {
    com.sun.management.ThreadMXBean threads =
        (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    long me = Thread.currentThread().getId();
    try (TestDatabase db = TestDatabase.embedded();
        RabbitTransport transport = RabbitTransport.create(Broker.uri(vhost));
        Once once =
            Once.builder()
                .dataSource(db.dataSource())
                .transport(transport)
                .destinations("orders")
                .build()) {
      bindAQueueThatKeepsTheLast(transport.exchangeName("orders"), 100);
      Relay relay = once.newRelay();
      long bytes = 0;
      long rows = 0;
      for (int round = 0; round < WARM + MEASURED; round++) {
        int base = round * BATCH;
        once.useTransaction(
            tx -> {
              for (int i = 0; i < BATCH; i++) {
                tx.publish(
                    Event.of(
                        EventId.of("order", base + i),
                        "orders",
                        Integer.toString(base + i),
                        "Ordered",
                        "{\"orderId\":" + (base + i) + "}"));
              }
            });
        long before = threads.getThreadAllocatedBytes(me);
        int sent = 0;
        while (sent < BATCH) {
          sent += relay.runOnce();
        }
        if (round >= WARM) {
          bytes += threads.getThreadAllocatedBytes(me) - before;
          rows += sent;
        }
      }
      assertThat(db.count("SELECT count(*) FROM once_outbox WHERE sent_at IS NULL")).isZero();
      assertThat(bytes / rows).as("bytes allocated per row published").isLessThan(BOUND);
    }
  }

  /** A queue bound to every message of {@code exchange}, so each is routed and confirmed. */
  private static void bindAQueueThatKeepsTheLast(String exchange, int messages) throws Exception {
    ConnectionFactory factory = new ConnectionFactory();
    factory.setUri(Broker.uri(vhost));
    try (Connection c = factory.newConnection();
        Channel ch = c.createChannel()) {
      ch.exchangeDeclare(exchange, "topic", true);
      ch.queueDeclare("orders.kept", true, false, false, Map.of("x-max-length", messages));
      ch.queueBind("orders.kept", exchange, "#");
    }
  }
}
