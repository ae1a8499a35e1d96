package dev.once.sqs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.once.BrokerMove;
import dev.once.Event;
import dev.once.EventId;
import dev.once.Once;
import dev.once.spi.BrokerDeadLetter;
import dev.once.test.TestDatabase;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.sqs.SqsAsyncClient;
import software.amazon.awssdk.services.sqs.model.MessageAttributeValue;
import software.amazon.awssdk.services.sqs.model.QueueAttributeName;

/**
 * A group queue with a redrive policy (the user's: Once declares none): what SQS moved to its
 * dead-letter queue after {@code maxReceiveCount} receives is counted, looked at without being
 * taken, and moved into Once's dead letters once, as RabbitMQ's {@code <queue>.dead-letter} is.
 */
class BrokerDeadLettersTest {
  private static TestDatabase db;
  private static SqsTransport transport;

  @BeforeAll
  static void open() {
    db = TestDatabase.embedded();
    transport = Sqs.transport().build();
  }

  @AfterAll
  static void close() {
    transport.close();
    db.close();
  }

  @Test
  void whatSqsMovedToTheRedriveTargetIsCountedPeekedAndMovedIntoOncesDeadLettersOnce() {
    String dest = "redrive-" + System.nanoTime();
    SqsAsyncClient sqs = transport.client();
    transport.declare(dest, "g");
    String url = sqs.getQueueUrl(b -> b.queueName(dest + "__g")).join().queueUrl();
    // Given: a dead-letter queue whose name is no group of the destination ('__' in the group part)
    String dlq = sqs.createQueue(b -> b.queueName(dest + "__g__dlq")).join().queueUrl();
    String arn =
        sqs.getQueueAttributes(b -> b.queueUrl(dlq).attributeNames(QueueAttributeName.QUEUE_ARN))
            .join()
            .attributes()
            .get(QueueAttributeName.QUEUE_ARN);
    sqs.setQueueAttributes(
            b ->
                b.queueUrl(url)
                    .attributes(
                        Map.of(
                            QueueAttributeName.REDRIVE_POLICY,
                            "{\"maxReceiveCount\":\"1\",\"deadLetterTargetArn\":\"" + arn + "\"}")))
        .join();
    assertThat(transport.deadLetterQueueName(dest, "g")).contains(dest + "__g__dlq");
    assertThat(transport.count(dest, "g")).isZero();

    try (Once once =
        Once.builder()
            .dataSource(db.dataSource())
            .transport(transport)
            .destinations(dest)
            .build()) {
      // Given: one of Once's events and a foreign message, each received past maxReceiveCount
      once.inTransaction(tx -> tx.publish(Event.of(EventId.of("paid", 7), dest, "k", "T", "{}")));
      assertThat(once.newRelay().runOnce()).isEqualTo(1);
      sqs.sendMessage(
              b ->
                  b.queueUrl(url)
                      .messageBody("from elsewhere")
                      .messageAttributes(
                          Map.of(
                              "x",
                              MessageAttributeValue.builder()
                                  .dataType("String")
                                  .stringValue("y")
                                  .build())))
          .join();
      receiveUntilMoved(sqs, url, 2);

      // Then: counted, and a peek leaves them where they are
      assertThat(transport.count(dest, "g")).isEqualTo(2);
      List<BrokerDeadLetter> seen = once.deadLetters().peekBroker(dest, "g", 10);
      assertThat(seen).hasSize(2);
      assertThat(seen.stream().map(m -> m.delivery().isMalformed())).containsOnly(true, false);
      assertThat(seen).allMatch(m -> m.queue().equals(dest + "__g"));
      assertThat(seen).allMatch(m -> m.reason().equals("maxReceiveCount"));
      assertThat(
              seen.stream()
                  .filter(m -> !m.delivery().isMalformed())
                  .map(m -> m.delivery().event().id().value()))
          .containsExactly("paid:7");
      assertThat(transport.count(dest, "g")).isEqualTo(2);

      // When: moved
      BrokerMove moved = once.deadLetters().moveFromBroker(dest, "g", 100, m -> {});

      // Then: both are Once's dead letters, the dead-letter queue is empty
      assertThat(moved.moved()).isEqualTo(2);
      assertThat(moved.malformed()).isEqualTo(1);
      assertThat(transport.count(dest, "g")).isZero();
      assertThat(db.count("SELECT count(*) FROM once_dead_letter WHERE destination = ?", dest))
          .isEqualTo(2);
      assertThat(once.deadLetters().moveFromBroker(dest, "g", 100, m -> {}).moved()).isZero();

      // And: the relay's fan-out does not take the dead-letter queue for a group
      once.inTransaction(tx -> tx.publish(Event.of(EventId.of("paid", 8), dest, "k", "T", "{}")));
      assertThat(once.newRelay().runOnce()).isEqualTo(1);
      assertThat(transport.depth(dest, "g")).hasValue(1);
      assertThat(transport.count(dest, "g")).isZero();
    }
  }

  @Test
  void aGroupQueueWithoutRedrivePolicyHasNoBrokerDeadLettersAndAMissingOneIsNoGroup() {
    String dest = "noredrive-" + System.nanoTime();
    transport.declare(dest, "g");
    assertThat(transport.hasGroup(dest, "g")).isTrue();
    assertThat(transport.hasGroup(dest, "other")).isFalse();
    assertThat(transport.deadLetterQueueName(dest, "g")).isEmpty();
    assertThat(transport.count(dest, "g")).isZero();
    try (var reader = transport.reader(dest, "g")) {
      assertThat(reader.next()).isNull();
    }
  }

  /** Receives from the group queue (and gives back at once) until SQS moved {@code n} messages. */
  private static void receiveUntilMoved(SqsAsyncClient sqs, String url, int n) {
    long deadline = System.nanoTime() + 20_000_000_000L;
    while (transport.count(url.substring(url.lastIndexOf('/') + 1).split("__")[0], "g") < n) {
      assertThat(System.nanoTime()).as("SQS moved " + n + " within 20 s").isLessThan(deadline);
      sqs.receiveMessage(b -> b.queueUrl(url).maxNumberOfMessages(10).visibilityTimeout(0)).join();
    }
  }
}
