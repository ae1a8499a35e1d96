package dev.once.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.once.ConfigurationException;
import dev.once.Consumer;
import dev.once.Event;
import dev.once.EventId;
import dev.once.Once;
import dev.once.OnceListener;
import dev.once.Outcome;
import dev.once.ReceivedEvent;
import dev.once.RetentionPolicy;
import dev.once.RetryPolicy;
import dev.once.kafka.internal.GroupConsumer;
import dev.once.spi.Transport;
import dev.once.test.TestDatabase;
import dev.once.testkit.DuplicatingTransport;
import dev.once.testkit.EarlyAckingTransport;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Once over Kafka end to end: identity by event id, retries and dead letters counted in the
 * database, malformed records, and the retention check.
 */
class KafkaPipelineTest {
  private static final Duration WAIT = Duration.ofSeconds(30);
  private static TestDatabase db;
  private static KafkaTransport transport;

  @BeforeAll
  static void open() {
    db = TestDatabase.embedded();
    db.execute("CREATE TABLE effects (event_id text NOT NULL)");
    transport = Broker.transport().build();
  }

  @AfterAll
  static void close() {
    transport.close();
    db.close();
  }

  private static final class Seen implements OnceListener {
    final List<Outcome> outcomes = new CopyOnWriteArrayList<>();
    final Map<String, List<Integer>> attempts = new ConcurrentHashMap<>();

    @Override
    public void outcome(ReceivedEvent event, Outcome outcome, Duration took) {
      outcomes.add(outcome);
    }

    @Override
    public void received(List<ReceivedEvent> batch) {
      for (ReceivedEvent e : batch) {
        attempts
            .computeIfAbsent(e.id().value(), k -> new CopyOnWriteArrayList<>())
            .add(e.deliveryCount());
      }
    }
  }

  private static Once once(String dest, OnceListener listener) {
    return Once.builder()
        .dataSource(db.dataSource())
        .transport(transport)
        .destinations(dest)
        .listener(listener)
        .build();
  }

  private static long effects(String prefix) {
    return db.count("SELECT count(*) FROM effects WHERE event_id LIKE ?", prefix + "%");
  }

  @Test
  void theSameEventPublishedTwiceAtTwoOffsetsIsOneEffectAndOneDuplicate() {
    String dest = PipelineNames.unique("identity");
    Seen seen = new Seen();
    transport.declare(dest, "warehouse");
    Event e = Event.of(EventId.of("paid", dest), dest, "k", "Paid", "{}");
    // a relay that crashed after publishing and before marking sent publishes the row again:
    // a new offset, the same event id
    assertThat(transport.publish(List.of(e), WAIT).confirmed().cardinality()).isEqualTo(1);
    assertThat(transport.publish(List.of(e), WAIT).confirmed().cardinality()).isEqualTo(1);
    try (Once once = once(dest, seen);
        Consumer c =
            once.consumer("warehouse")
                .subscribe(
                    dest, (tx, ev) -> tx.update("INSERT INTO effects VALUES (?)", ev.id().value()))
                .build()
                .start()) {
      await().atMost(WAIT).until(() -> seen.outcomes.size() >= 2);
    }
    assertThat(seen.outcomes).containsExactly(Outcome.PROCESSED, Outcome.DUPLICATE);
    assertThat(effects(e.id().value())).isEqualTo(1);
  }

  @Test
  void recordsOfAMemberWhosePartitionsWereLostAreDuplicatesForTheNewOwnerNeverASecondEffect()
      throws Exception {
    String dest = PipelineNames.unique("lost");
    Seen seen = new Seen();
    CountDownLatch inHandler = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    // The first member's worker holds its batch inside its transaction; when the second member
    // joins, the first one's poll thread waits in the revoke callback past max.poll.interval.ms,
    // the group expels it, and what it still owned is lost. Then its transaction commits.
    try (KafkaTransport first =
            Broker.transport()
                .partitions(2)
                .revokeTimeout(Duration.ofSeconds(8))
                .property("max.poll.interval.ms", "2000")
                .build();
        KafkaTransport second = Broker.transport().partitions(2).build()) {
      first.declare(dest, "warehouse");
      List<Event> events = new java.util.ArrayList<>();
      for (int i = 0; i < 4; i++) {
        events.add(Event.of(EventId.of("lost", dest, i), dest, "k" + i, "Paid", "{}"));
      }
      assertThat(first.publish(events, WAIT).confirmed().cardinality()).isEqualTo(4);
      try (Once a = once(first, dest, seen);
          Once b = once(second, dest, seen);
          Consumer ca =
              a.consumer("warehouse")
                  .subscribe(
                      dest,
                      (tx, ev) -> {
                        tx.update("INSERT INTO effects VALUES (?)", ev.id().value());
                        inHandler.countDown();
                        release.await(60, TimeUnit.SECONDS);
                      })
                  .batchSize(10)
                  .build()
                  .start()) {
        assertThat(inHandler.await(30, TimeUnit.SECONDS)).as("first member got a batch").isTrue();
        try (Consumer cb =
            b.consumer("warehouse")
                .subscribe(
                    dest, (tx, ev) -> tx.update("INSERT INTO effects VALUES (?)", ev.id().value()))
                .build()
                .start()) {
          GroupConsumer gc = first.consumerOf(dest, "warehouse");
          await().atMost(Duration.ofSeconds(60)).until(() -> gc.lostPartitions() > 0);
          release.countDown(); // the old owner's transaction commits; its acknowledgement is late
          await()
              .atMost(Duration.ofSeconds(60))
              .until(() -> seen.outcomes.size() >= 8 && effects("lost:" + dest) == 4);
        }
      } finally {
        release.countDown();
      }
    }
    assertThat(effects("lost:" + dest)).as("one effect per event").isEqualTo(4);
    assertThat(seen.outcomes.stream().filter(o -> o == Outcome.PROCESSED)).hasSize(4);
    assertThat(seen.outcomes.stream().filter(o -> o == Outcome.DUPLICATE))
        .hasSizeGreaterThanOrEqualTo(4);
  }

  private static Once once(KafkaTransport t, String dest, OnceListener listener) {
    return Once.builder()
        .dataSource(db.dataSource())
        .transport(t)
        .destinations(dest)
        .listener(listener)
        .build();
  }

  @Test
  void aFailingRecordIsRetriedWithBackoffCountedInTheDatabaseThenDeadLetteredAndTheOffsetMovesOn() {
    String dest = PipelineNames.unique("poison");
    Seen seen = new Seen();
    transport.declare(dest, "warehouse");
    EventId poison = EventId.of("poison", dest);
    try (Once once = once(dest, seen);
        Consumer c =
            once.consumer("warehouse")
                .subscribe(
                    dest,
                    (tx, ev) -> {
                      if (ev.id().equals(poison)) {
                        throw new IllegalStateException("cannot handle this one");
                      }
                      tx.update("INSERT INTO effects VALUES (?)", ev.id().value());
                    })
                .retry(
                    RetryPolicy.builder()
                        .maxAttempts(3)
                        .backoff(Duration.ofMillis(200), Duration.ofMillis(400))
                        .build())
                .workers(2)
                .build()
                .start()) {
      once.useTransaction(
          tx -> {
            tx.publish(Event.of(poison, dest, "p", "Order", "{}"));
            for (int i = 0; i < 20; i++) {
              tx.publish(Event.of(EventId.of("fine", dest, i), dest, "k" + i, "Order", "{}"));
            }
          });
      assertThat(once.newRelay().runOnce()).isEqualTo(21);
      await().atMost(WAIT).until(() -> effects("fine:" + dest) == 20);
      await()
          .atMost(WAIT)
          .until(
              () ->
                  db.count(
                          "SELECT count(*) FROM once_dead_letter WHERE event_id = ?",
                          poison.value())
                      == 1);
      await().atMost(WAIT).until(() -> transport.depth(dest, "warehouse").orElse(-1) == 0);
    }
    assertThat(seen.attempts.get(poison.value())).containsExactly(1, 2, 3);
    assertThat(db.count("SELECT count(*) FROM once_attempt WHERE event_id = ?", poison.value()))
        .as("the attempt count is gone with the dead letter")
        .isZero();
  }

  @Test
  void aRecordWithoutAnIdHeaderOrWithBytesThatAreNotUtf8IsADeadLetterOnItsFirstDelivery()
      throws Exception {
    String dest = PipelineNames.unique("malformed");
    Seen seen = new Seen();
    transport.declare(dest, "warehouse");
    String topic = transport.settings().topic(dest);
    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, Broker.bootstrap());
    p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    try (KafkaProducer<byte[], byte[]> foreign = new KafkaProducer<>(p)) {
      foreign
          .send(new ProducerRecord<>(topic, "k".getBytes(), "no id header".getBytes()))
          .get(10, TimeUnit.SECONDS);
      RecordHeaders bad = new RecordHeaders();
      bad.add("once-event-id", new byte[] {(byte) 0xff, (byte) 0xfe});
      bad.add("once-type", "Order".getBytes(StandardCharsets.UTF_8));
      foreign
          .send(new ProducerRecord<>(topic, null, "k".getBytes(), "{}".getBytes(), bad))
          .get(10, TimeUnit.SECONDS);
    }
    Event fine = Event.of(EventId.of("fine", dest), dest, "k", "Order", "{}");
    assertThat(transport.publish(List.of(fine), WAIT).confirmed().cardinality()).isEqualTo(1);
    try (Once once = once(dest, seen);
        Consumer c =
            once.consumer("warehouse")
                .subscribe(
                    dest, (tx, ev) -> tx.update("INSERT INTO effects VALUES (?)", ev.id().value()))
                .build()
                .start()) {
      await().atMost(WAIT).until(() -> effects(fine.id().value()) == 1);
      await().atMost(WAIT).until(() -> transport.depth(dest, "warehouse").orElse(-1) == 0);
    }
    assertThat(seen.outcomes).containsExactly(Outcome.DEAD, Outcome.DEAD, Outcome.PROCESSED);
    assertThat(
            db.count(
                "SELECT count(*) FROM once_dead_letter WHERE consumer_id = 'warehouse'"
                    + " AND event_id LIKE 'malformed:%' AND attempts = 1"))
        .as("dead letters at the first delivery")
        .isEqualTo(2);
  }

  @Test
  void aRedeliveryHorizonShorterThanTheTopicRetentionIsRefused() {
    try (KafkaTransport week =
        KafkaTransport.builder()
            .bootstrapServers(Broker.bootstrap())
            .topicRetention(Duration.ofDays(7))
            .build()) {
      assertThatThrownBy(
              () ->
                  Once.builder()
                      .dataSource(db.dataSource())
                      .transport(week)
                      .destinations("orders")
                      .retention(RetentionPolicy.DEFAULT)
                      .build())
          .isInstanceOf(ConfigurationException.class)
          .hasMessageContaining("retention.redeliveryHorizon")
          .hasMessageContaining("PT168H");
      Once ok =
          Once.builder()
              .dataSource(db.dataSource())
              .transport(week)
              .destinations("orders")
              .retention(RetentionPolicy.builder().redeliveryHorizon(Duration.ofDays(7)).build())
              .build();
      ok.close();
    }
  }

  /**
   * The retention check is a capability of the Kafka transport: a decorator around it (here the
   * testkit's fault injectors) keeps it, so {@code build()} still refuses the short horizon. Before
   * the capabilities, {@code DuplicatingTransport} forwarded no {@code checkRetention} and the
   * check was silently skipped.
   */
  @Test
  void aWrappedKafkaTransportStillRefusesARedeliveryHorizonShorterThanTheTopicRetention() {
    try (KafkaTransport week =
        KafkaTransport.builder()
            .bootstrapServers(Broker.bootstrap())
            .topicRetention(Duration.ofDays(7))
            .build()) {
      for (Transport wrapped :
          List.of(
              new DuplicatingTransport(week, 0.5, 1),
              new EarlyAckingTransport(new DuplicatingTransport(week, 0.5, 1)))) {
        assertThatThrownBy(
                () ->
                    Once.builder()
                        .dataSource(db.dataSource())
                        .transport(wrapped)
                        .destinations("orders")
                        .retention(RetentionPolicy.DEFAULT)
                        .build())
            .as(wrapped.name())
            .isInstanceOf(ConfigurationException.class)
            .hasMessageContaining("retention.redeliveryHorizon");
      }
    }
  }
}
