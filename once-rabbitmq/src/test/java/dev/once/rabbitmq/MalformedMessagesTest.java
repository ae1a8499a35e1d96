package dev.once.rabbitmq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import dev.once.OnceListener;
import dev.once.test.TestDatabase;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A foreign producer publishes malformed messages straight to the destination's exchange with
 * amqp-client, between well-formed events. Each malformed one must become exactly one Once dead
 * letter on its first delivery, and be acknowledged; the consumer keeps its channel and the other
 * events are processed exactly once.
 */
class MalformedMessagesTest {
  private static final int EVENTS = 300;
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
  void eachMalformedMessageBecomesOneDeadLetterAndTheOtherEventsAreProcessedOnce()
      throws Exception {
    PrintStream err = System.err;
    ByteArrayOutputStream logged = new ByteArrayOutputStream();
    try (TestDatabase db = TestDatabase.embedded();
        RabbitTransport transport = RabbitTransport.create(Broker.uri(vhost));
        Flow flow = new Flow(db, transport, new OnceListener() {})) {
      flow.start();
      String exchange = transport.exchangeName(Flow.DESTINATION);
      String queue = transport.queueName(Flow.DESTINATION, "warehouse");
      ConnectionFactory factory = new ConnectionFactory();
      factory.setUri(Broker.uri(vhost));
      System.setErr(new PrintStream(new Tee(err, logged), true, StandardCharsets.UTF_8));
      try (Connection raw = factory.newConnection();
          Channel ch = raw.createChannel()) {
        flow.produce(Flow.DESTINATION, EVENTS / 2);
        Map<String, Object> nullHeader = new HashMap<>();
        nullHeader.put("tenant", null);
        publish(ch, exchange, props("null-header:1", "OrderPaid", nullHeader), "{}".getBytes());
        publish(ch, exchange, props("x".repeat(240), "OrderPaid", null), "{}".getBytes());
        publish(ch, exchange, props(null, "OrderPaid", null), "not json at all".getBytes());
        publish(ch, exchange, props("order\u0001\u0007:4", "OrderPaid", null), "{}".getBytes());
        publish(ch, exchange, props("big:5", "OrderPaid", null), new byte[2 * 1024 * 1024]);
        // a well-formed foreign message: message-id and type, no Once header
        publish(ch, exchange, props("foreign:6", "OrderPaid", null), "<xml/>".getBytes());
        flow.produceRange(Flow.DESTINATION, EVENTS / 2, EVENTS);

        await()
            .atMost(Duration.ofSeconds(20))
            .until(() -> db.count("SELECT count(*) FROM once_dead_letter") >= 5);
        flow.assertEachProcessedOnce(EVENTS + 1, Duration.ofSeconds(60));
        // Then: five dead letters, one each, saying which field was wrong; nothing in RabbitMQ's
        // DLQ
        assertThat(
                db.count(
                    "SELECT count(*) FROM once_dead_letter"
                        + " WHERE error_class = 'dev.once.MalformedMessage'"
                        + " AND consumer_id = 'warehouse' AND attempts = 1"))
            .isEqualTo(5);
        assertThat(db.count("SELECT count(*) FROM once_dead_letter")).isEqualTo(5);
        for (String reason :
            new String[] {
              "header 'tenant' is null",
              "message-id is 240 characters long, the limit is 200",
              "once-event-id missing",
              "message-id has a control character at index 5",
              "body is 2097152 bytes, the limit is 1048576"
            }) {
          assertThat(
                  db.count("SELECT count(*) FROM once_dead_letter WHERE error_message = ?", reason))
              .as(reason)
              .isEqualTo(1);
        }
        assertThat(ch.messageCount(queue)).as("left in the queue").isZero();
        assertThat(ch.messageCount(queue + ".dead-letter"))
            .as("in RabbitMQ's dead-letter queue")
            .isZero();
        assertThat(ch.consumerCount(queue)).as("consumers still there").isEqualTo(4);
      } finally {
        System.setErr(err);
      }
      String log = logged.toString(StandardCharsets.UTF_8);
      long lines = log.lines().count();
      assertThat(lines).as("log lines for 5 bad messages:\n" + log).isLessThan(5 * 10);
      assertThat(log).doesNotContain("lost its channel").doesNotContain("Exception");
    }
  }

  private static AMQP.BasicProperties props(String id, String type, Map<String, Object> headers) {
    return new AMQP.BasicProperties.Builder()
        .messageId(id)
        .type(type)
        .deliveryMode(2)
        .headers(headers)
        .build();
  }

  private static void publish(Channel ch, String exchange, AMQP.BasicProperties p, byte[] body)
      throws Exception {
    ch.basicPublish(exchange, "k", p, body);
  }

  /** Writes to the real stderr and keeps a copy. */
  private static final class Tee extends java.io.OutputStream {
    private final PrintStream out;
    private final ByteArrayOutputStream copy;

    Tee(PrintStream out, ByteArrayOutputStream copy) {
      this.out = out;
      this.copy = copy;
    }

    @Override
    public synchronized void write(int b) {
      out.write(b);
      copy.write(b);
    }

    @Override
    public synchronized void write(byte[] b, int off, int len) {
      out.write(b, off, len);
      copy.write(b, off, len);
    }
  }
}
