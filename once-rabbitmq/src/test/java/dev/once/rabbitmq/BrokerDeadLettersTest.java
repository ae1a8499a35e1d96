package dev.once.rabbitmq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.GetResponse;
import dev.once.BrokerMove;
import dev.once.DeadLetter;
import dev.once.DeadLetterFilter;
import dev.once.Once;
import dev.once.spi.BrokerDeadLetter;
import dev.once.spi.BrokerDeadLetterReader;
import dev.once.spi.BrokerDeadLetters;
import dev.once.spi.ForwardingTransport;
import dev.once.spi.Transport;
import dev.once.test.TestDatabase;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * What RabbitMQ dead-letters on its own (rejects, the delivery limit) is counted, can be looked at,
 * and can be moved into Once's dead letters — committed before the broker forgets the message. Each
 * test uses a consumer group of its own in a virtual host of this class.
 */
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
      assertThat(transport.count("orders", "counted")).isZero();
      transport.declare("orders", "counted");
      try (Raw raw = new Raw()) {
        raw.publish(transport.exchangeName("orders"), "m:1", "{}");
        raw.rejectAll(transport.queueName("orders", "counted"), 1);
      }
      await().atMost(Duration.ofSeconds(10)).until(() -> transport.count("orders", "counted") == 1);
    }
  }

  @Test
  void rejectedMessagesAreListedWithoutBeingTakenThenMovedAndReplayable() throws Exception {
    String group = "moved";
    try (TestDatabase db = TestDatabase.embedded();
        RabbitTransport transport = RabbitTransport.create(Broker.uri(vhost));
        Once once = once(db, transport);
        Raw raw = new Raw()) {
      transport.declare("orders", group);
      String queue = transport.queueName("orders", group);
      raw.publish(transport.exchangeName("orders"), "order-paid:7", "{\"card\":\"4111\"}");
      raw.publish(transport.exchangeName("orders"), null, "not json"); // foreign, no id
      raw.rejectAll(queue, 2);
      await().atMost(Duration.ofSeconds(10)).until(() -> dlq(transport, group) == 2);

      // When: looked at, twice
      for (int look = 0; look < 2; look++) {
        List<BrokerDeadLetter> seen = once.deadLetters().peekBroker("orders", group, 10);
        assertThat(seen).hasSize(2);
        assertThat(seen).allSatisfy(m -> assertThat(m.reason()).isEqualTo("rejected"));
        assertThat(seen).allSatisfy(m -> assertThat(m.queue()).isEqualTo(queue));
        assertThat(seen).allSatisfy(m -> assertThat(m.deadAt()).isNotNull());
        assertThat(seen.stream().filter(m -> m.delivery().isMalformed()).count()).isEqualTo(1);
      }
      // Then: still there
      await().atMost(Duration.ofSeconds(10)).until(() -> dlq(transport, group) == 2);
      assertThat(db.count("SELECT count(*) FROM once_dead_letter")).isZero();

      // When: moved
      List<BrokerMove> progress = new ArrayList<>();
      BrokerMove move = once.deadLetters().moveFromBroker("orders", group, 100, progress::add);
      assertThat(move).isEqualTo(new BrokerMove(2, 0, 1));
      assertThat(progress).hasSize(2);
      assertThat(dlq(transport, group)).isZero();
      assertThat(
              db.count(
                  "SELECT count(*) FROM once_dead_letter WHERE consumer_id = ? AND event_id = ?"
                      + " AND error_class = 'dev.once.BrokerDeadLettered' AND status = 'dead'"
                      + " AND error_message LIKE ?",
                  group,
                  "order-paid:7",
                  "rabbitmq dead-lettered it on its own from queue '" + queue + "' (rejected%"))
          .isEqualTo(1);
      assertThat(
              db.count(
                  "SELECT count(*) FROM once_dead_letter WHERE consumer_id = ?"
                      + " AND event_id LIKE 'malformed:%'"
                      + " AND error_class = 'dev.once.MalformedMessage'"
                      + " AND error_message = 'once-event-id missing"
                      + " (rabbitmq dead-lettered it on its own: rejected)'",
                  group))
          .isEqualTo(1);

      // Then: a moved dead letter replays into the group's queue like any other
      List<DeadLetter> replayed =
          once.deadLetters()
              .replay(
                  new DeadLetterFilter(group, "order-paid:7", null, null, null, null, "dead", 10),
                  "test",
                  "moved from the broker");
      assertThat(replayed).hasSize(1);
      GetResponse back = raw.get(queue);
      assertThat(back).isNotNull();
      assertThat(new String(back.getBody(), StandardCharsets.UTF_8))
          .isEqualTo("{\"card\":\"4111\"}");
    }
  }

  @Test
  void aMoveInterruptedAfterItsCommitLeavesTheMessageAndTheNextMoveAddsNoSecondDeadLetter()
      throws Exception {
    String group = "interrupted";
    try (TestDatabase db = TestDatabase.embedded();
        RabbitTransport transport = RabbitTransport.create(Broker.uri(vhost));
        Raw raw = new Raw()) {
      transport.declare("orders", group);
      raw.publish(transport.exchangeName("orders"), "order-paid:9", "{}");
      raw.rejectAll(transport.queueName("orders", group), 1);
      await().atMost(Duration.ofSeconds(10)).until(() -> dlq(transport, group) == 1);

      // Given: a move that dies after the commit, before the broker's acknowledgement
      try (Once crashing = once(db, new AckNeverReached(transport, true))) {
        assertThatThrownBy(
                () -> crashing.deadLetters().moveFromBroker("orders", group, 10, m -> {}))
            .hasMessageContaining("crashed before the ack");
      }
      assertThat(db.count("SELECT count(*) FROM once_dead_letter")).isEqualTo(1);
      await().atMost(Duration.ofSeconds(10)).until(() -> dlq(transport, group) == 1);

      // When: moved again
      try (Once once = once(db, transport)) {
        BrokerMove again = once.deadLetters().moveFromBroker("orders", group, 10, m -> {});
        // Then: the message is taken off the broker, and no second dead letter is written
        assertThat(again).isEqualTo(new BrokerMove(0, 1, 0));
      }
      assertThat(db.count("SELECT count(*) FROM once_dead_letter")).isEqualTo(1);
      assertThat(dlq(transport, group)).isZero();
    }
  }

  @Test
  void aMoveWhoseAcksAreLostLeavesTheMessagesThereAndTheNextMoveAddsNoSecondDeadLetter()
      throws Exception {
    String group = "acks-lost";
    try (TestDatabase db = TestDatabase.embedded();
        RabbitTransport transport = RabbitTransport.create(Broker.uri(vhost));
        Raw raw = new Raw()) {
      transport.declare("orders", group);
      raw.publish(transport.exchangeName("orders"), "order-paid:10", "{}");
      raw.publish(transport.exchangeName("orders"), null, "not json"); // malformed: no id
      raw.rejectAll(transport.queueName("orders", group), 2);
      await().atMost(Duration.ofSeconds(10)).until(() -> dlq(transport, group) == 2);

      // Given: a move whose acknowledgements never reach RabbitMQ: both come back, counted as
      // delivered once more (x-delivery-count)
      try (Once lost = once(db, new AckNeverReached(transport, false))) {
        assertThat(lost.deadLetters().moveFromBroker("orders", group, 10, m -> {}))
            .isEqualTo(new BrokerMove(2, 0, 1));
      }
      await().atMost(Duration.ofSeconds(10)).until(() -> dlq(transport, group) == 2);

      // When: moved again
      try (Once once = once(db, transport)) {
        // Then: both are taken off the broker, the malformed one under the same stand-in id
        assertThat(once.deadLetters().moveFromBroker("orders", group, 10, m -> {}))
            .isEqualTo(new BrokerMove(0, 2, 1));
      }
      assertThat(db.count("SELECT count(*) FROM once_dead_letter")).isEqualTo(2);
      assertThat(dlq(transport, group)).isZero();
    }
  }

  @Test
  void aMoveStopsAtItsLimit() throws Exception {
    String group = "limited";
    try (TestDatabase db = TestDatabase.embedded();
        RabbitTransport transport = RabbitTransport.create(Broker.uri(vhost));
        Once once = once(db, transport);
        Raw raw = new Raw()) {
      transport.declare("orders", group);
      for (int i = 0; i < 5; i++) {
        raw.publish(transport.exchangeName("orders"), "order-paid:" + i, "{}");
      }
      raw.rejectAll(transport.queueName("orders", group), 5);
      await().atMost(Duration.ofSeconds(10)).until(() -> dlq(transport, group) == 5);

      assertThat(once.deadLetters().moveFromBroker("orders", group, 3, m -> {}).moved())
          .isEqualTo(3);
      await().atMost(Duration.ofSeconds(10)).until(() -> dlq(transport, group) == 2);
      assertThat(db.count("SELECT count(*) FROM once_dead_letter")).isEqualTo(3);
    }
  }

  private static Once once(TestDatabase db, Transport transport) {
    return Once.builder().dataSource(db.dataSource()).transport(transport).build();
  }

  private static long dlq(RabbitTransport transport, String group) {
    return transport.count("orders", group);
  }

  /** A foreign producer and a careless consumer, with amqp-client. */
  private static final class Raw implements AutoCloseable {
    private final Connection connection;
    private final Channel ch;

    Raw() throws Exception {
      ConnectionFactory factory = new ConnectionFactory();
      factory.setUri(Broker.uri(vhost));
      connection = factory.newConnection();
      ch = connection.createChannel();
    }

    void publish(String exchange, String messageId, String body) throws Exception {
      ch.basicPublish(
          exchange,
          "k",
          new AMQP.BasicProperties.Builder().messageId(messageId).type("OrderPaid").build(),
          body.getBytes(StandardCharsets.UTF_8));
    }

    /** Takes {@code n} messages off the queue and rejects each without requeue. */
    void rejectAll(String queue, int n) throws Exception {
      await().atMost(Duration.ofSeconds(10)).until(() -> ch.messageCount(queue) == n);
      for (int i = 0; i < n; i++) {
        ch.basicReject(ch.basicGet(queue, false).getEnvelope().getDeliveryTag(), false);
      }
    }

    GetResponse get(String queue) {
      return await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> ch.basicGet(queue, true), r -> r != null);
    }

    @Override
    public void close() throws Exception {
      connection.close();
    }
  }

  /**
   * A process whose acknowledgements never reach RabbitMQ: it dies right after the dead letter
   * committed ({@code dies}), or its acks are lost on the way and the messages return on close.
   */
  private static final class AckNeverReached extends ForwardingTransport
      implements BrokerDeadLetters {
    private final RabbitTransport rabbit;
    private final boolean dies;

    AckNeverReached(RabbitTransport delegate, boolean dies) {
      super(delegate);
      this.rabbit = delegate;
      this.dies = dies;
    }

    @Override
    public BrokerDeadLetterReader reader(String destination, String consumerId) {
      BrokerDeadLetterReader reader = rabbit.reader(destination, consumerId);
      return new BrokerDeadLetterReader() {
        @Override
        public BrokerDeadLetter next() {
          return reader.next();
        }

        @Override
        public void acknowledge(BrokerDeadLetter message) {
          if (dies) {
            throw new IllegalStateException("crashed before the ack");
          }
        }

        @Override
        public void close() {
          reader.close();
        }
      };
    }

    @Override
    public long count(String destination, String consumerId) {
      return rabbit.count(destination, consumerId);
    }

    @Override
    public void close() {}
  }
}
