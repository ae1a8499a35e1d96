package dev.once.sqs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.once.Consumer;
import dev.once.Event;
import dev.once.EventId;
import dev.once.InvalidEventException;
import dev.once.Once;
import dev.once.RetryPolicy;
import dev.once.test.TestDatabase;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.sqs.model.MessageAttributeValue;
import software.amazon.awssdk.services.sqs.model.SendMessageRequest;

/**
 * What a foreign or hostile producer can put on a group queue, and what Once's own producer cannot
 * send: each ends as one clear dead letter (deleted from SQS, the handler never called) or a clear
 * error at {@code tx.publish}, never a hot loop or a second effect.
 */
class HostileInputTest {
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
  void foreignAndMalformedMessagesEachBecomeOneDeadLetterOnTheirFirstDelivery() {
    String dest = "hostile-" + System.nanoTime();
    List<String> handled = new CopyOnWriteArrayList<>();
    try (Once once = once(dest);
        Consumer consumer = consumer(once, dest, handled, RetryPolicy.DEFAULT)) {
      String url = transport.client().getQueueUrl(b -> b.queueName(dest + "__g")).join().queueUrl();
      send(url, "hello from elsewhere", Map.of()); // no Once attributes at all
      send(url, "{}", Map.of("once-event-id", " padded", "once-type", "T")); // id not trimmed
      send(url, "{}", Map.of("once-event-id", "x".repeat(300), "once-type", "T")); // too long
      send(url, "%%%", Map.of("once-event-id", "b:1", "once-type", "T", "once-body", "base64"));
      once.inTransaction(tx -> tx.publish(Event.of(EventId.of("good", 1), dest, "k", "T", "{}")));
      once.newRelay().runOnce();

      runUntil(
          consumer,
          () -> deadLetters(dest) == 4 && handled.size() == 1,
          "4 dead letters and the good event handled");

      assertThat(handled).containsExactly("good:1");
      assertThat(
              db.count(
                  "SELECT count(*) FROM once_dead_letter WHERE error_class ="
                      + " 'dev.once.MalformedMessage' AND attempts = 1 AND destination = ?",
                  dest))
          .isEqualTo(4);
      runUntil(consumer, () -> depth(dest) == 0, "the queue emptied (dead letters deleted)");
    }
  }

  @Test
  void aPoisonIsRetriedWithBackoffThenDeadLetteredAndDeleted() {
    String dest = "poison-" + System.nanoTime();
    List<String> handled = new CopyOnWriteArrayList<>();
    RetryPolicy threeTries =
        RetryPolicy.builder()
            .maxAttempts(3)
            .backoff(Duration.ofMillis(100), Duration.ofMillis(200))
            .build();
    try (Once once = once(dest);
        Consumer consumer = consumer(once, dest, handled, threeTries)) {
      once.inTransaction(
          tx -> tx.publish(Event.of(EventId.of("poison", 1), dest, "k", "T", "{\"bad\":1}")));
      once.newRelay().runOnce();

      runUntil(consumer, () -> deadLetters(dest) == 1, "a dead letter");

      assertThat(handled).hasSize(3); // one call per attempt: no hot loop
      runUntil(consumer, () -> depth(dest) == 0, "the queue emptied");
      assertThat(handled).hasSize(3);
    }
  }

  @Test
  void tooLargeAnEventIsRefusedAtPublishAndNothingIsWritten() {
    String dest = "large-" + System.nanoTime();
    long before = db.count("SELECT count(*) FROM once_outbox");
    try (Once once = once(dest)) {
      String payload = "\"" + "x".repeat(256 * 1024) + "\"";
      assertThatThrownBy(
              () ->
                  once.inTransaction(
                      tx -> tx.publish(Event.of(EventId.of("big", 1), dest, "k", "T", payload))))
          .isInstanceOf(InvalidEventException.class)
          .hasMessageContaining("payload")
          .hasMessageContaining("262144");
    }
    assertThat(db.count("SELECT count(*) FROM once_outbox")).isEqualTo(before);
  }

  private static Once once(String dest) {
    return Once.builder()
        .dataSource(db.dataSource())
        .transport(transport)
        .destinations(dest)
        .build();
  }

  private static Consumer consumer(
      Once once, String dest, List<String> handled, RetryPolicy retry) {
    return once.consumer("g")
        .subscribe(
            dest,
            (tx, e) -> {
              handled.add(e.id().value());
              if (e.id().value().startsWith("poison")) {
                throw new IllegalStateException("cannot read this payload");
              }
            })
        .retry(retry)
        .idleWait(Duration.ofMillis(200))
        .build();
  }

  private static void send(String url, String body, Map<String, String> attributes) {
    Map<String, MessageAttributeValue> a = new HashMap<>();
    attributes.forEach(
        (k, v) ->
            a.put(k, MessageAttributeValue.builder().dataType("String").stringValue(v).build()));
    transport
        .client()
        .sendMessage(
            SendMessageRequest.builder()
                .queueUrl(url)
                .messageBody(body)
                .messageAttributes(a)
                .build())
        .join();
  }

  private static long deadLetters(String dest) {
    return db.count("SELECT count(*) FROM once_dead_letter WHERE destination = ?", dest);
  }

  private static long depth(String dest) {
    return transport.depth(dest, "g").orElseThrow();
  }

  /** Runs the consumer's batches until {@code done}, at most 20 s. */
  private static void runUntil(Consumer consumer, BooleanSupplier done, String what) {
    long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
    while (!done.getAsBoolean()) {
      assertThat(System.nanoTime()).as("within 20 s: " + what).isLessThan(deadline);
      consumer.runOnce();
    }
  }
}
