package dev.once.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import dev.once.Event;
import dev.once.EventId;
import dev.once.Once;
import dev.once.OnceListener;
import dev.once.kafka.internal.Publisher;
import dev.once.spi.PublishResult;
import dev.once.test.TestDatabase;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.Test;

/** The relay's side of the Kafka transport: producer settings, the record format, failures. */
class RelayToKafkaTest {

  @Test
  void theProducerIsIdempotentWaitsForAllInSyncReplicasAndGivesUpWithinTheDeliveryTimeout() {
    KafkaSettings s =
        KafkaTransport.builder().deliveryTimeout(Duration.ofSeconds(20)).build().settings();
    Properties p = Publisher.properties(s);
    assertThat(p.get(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG)).isEqualTo("true");
    assertThat(p.get(ProducerConfig.ACKS_CONFIG)).isEqualTo("all");
    assertThat(p.get(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG)).isEqualTo("20000");
    assertThat(Long.parseLong((String) p.get(ProducerConfig.MAX_BLOCK_MS_CONFIG)))
        .isLessThanOrEqualTo(20_000);
    assertThat(p).doesNotContainKey(ProducerConfig.TRANSACTIONAL_ID_CONFIG);
  }

  /**
   * A paced trickle: one event per relay batch. The producer's own {@code record-queue-time} (from
   * the record's append to its request) is at least {@code linger.ms} for a batch that is not full,
   * so without the flush after each batch every record waited the 5 ms linger before it left the
   * process.
   */
  @Test
  void aOneEventBatchLeavesTheProducerWithoutWaitingForALinger() throws Exception {
    String dest = PipelineNames.unique("trickle");
    String clientId = "once-relay-" + dest;
    try (KafkaTransport t =
        Broker.transport().partitions(1).property("client.id", clientId).build()) {
      t.declare(dest, "g");
      int events = 20;
      for (int i = 0; i < events; i++) {
        Event e = Event.of(EventId.of("e" + i, dest), dest, "k", "T", "{}");
        assertThat(t.publish(List.of(e), Duration.ofSeconds(10)).isConfirmed(0)).isTrue();
      }
      javax.management.ObjectName producer =
          new javax.management.ObjectName(
              "kafka.producer:type=producer-metrics,client-id=" + clientId);
      javax.management.MBeanServer jmx =
          java.lang.management.ManagementFactory.getPlatformMBeanServer();
      double sent = (Double) jmx.getAttribute(producer, "record-send-total");
      double queuedMs = (Double) jmx.getAttribute(producer, "record-queue-time-avg");
      assertThat(sent).isEqualTo(events);
      assertThat(queuedMs)
          .as("mean time a record waited in the producer before its request, ms")
          .isLessThan(5.0);
    }
  }

  @Test
  void aRecordCarriesTheEventKeyAsItsKeyAndTheIdTypeAndHeadersAsHeaders() {
    String dest = PipelineNames.unique("format");
    try (KafkaTransport t = Broker.transport().partitions(1).build()) {
      t.declare(dest, "g");
      Event e =
          new Event(
              EventId.of("order-paid", dest),
              dest,
              "order-7",
              "OrderPaid",
              "{\"total\":12}".getBytes(StandardCharsets.UTF_8),
              Map.of("content-type", "application/json", "trace", "abc"));
      assertThat(t.publish(List.of(e), Duration.ofSeconds(10)).isConfirmed(0)).isTrue();
      ConsumerRecord<byte[], byte[]> r = readOne(t.settings().topic(dest));
      assertThat(text(r.key())).isEqualTo("order-7");
      assertThat(text(r.value())).isEqualTo("{\"total\":12}");
      assertThat(text(r.headers().lastHeader("once-event-id").value())).isEqualTo(e.id().value());
      assertThat(text(r.headers().lastHeader("once-type").value())).isEqualTo("OrderPaid");
      assertThat(text(r.headers().lastHeader("trace").value())).isEqualTo("abc");
      assertThat(text(r.headers().lastHeader("content-type").value()))
          .isEqualTo("application/json");
    }
  }

  @Test
  void anEventToADestinationNoGroupDeclaredIsUnroutableNotARefusal() {
    String declared = PipelineNames.unique("declared");
    String undeclared = PipelineNames.unique("undeclared");
    try (KafkaTransport t = Broker.transport().partitions(1).build()) {
      t.declare(declared, "g");
      PublishResult r =
          t.publish(
              List.of(
                  Event.of(EventId.of("a", undeclared), undeclared, "k", "T", "{}"),
                  Event.of(EventId.of("b", declared), declared, "k2", "T", "{}")),
              Duration.ofSeconds(10));

      assertThat(r.isUnroutable(0)).as("no topic yet: waits uncharged").isTrue();
      assertThat(r.isRefused(0)).isFalse();
      assertThat(r.failures().get(0)).contains("unroutable: topic");
      assertThat(r.isConfirmed(1)).isTrue();
    }
  }

  @Test
  void afterAFailedSendNoLaterEventOfThatKeyCountsAsSentWhileOtherKeysDo() {
    String dest = PipelineNames.unique("overtake");
    try (KafkaTransport t = Broker.transport().build()) {
      t.declare(dest, "g");
      // a payload at Once's limit plus headers exceeds the producer's max.request.size (1 MiB)
      Event tooLarge =
          new Event(
              EventId.of("big", dest),
              dest,
              "k1",
              "Big",
              new byte[Event.MAX_PAYLOAD_BYTES],
              Map.of());
      Event sameKeyAfter = Event.of(EventId.of("after", dest), dest, "k1", "Small", "{}");
      Event otherKey = Event.of(EventId.of("other", dest), dest, "k2", "Small", "{}");
      PublishResult r =
          t.publish(List.of(tooLarge, sameKeyAfter, otherKey), Duration.ofSeconds(10));
      assertThat(r.isConfirmed(0)).isFalse();
      assertThat(r.failures().get(0)).contains("RecordTooLarge");
      assertThat(r.isRefused(0)).as("an error about the record itself is charged").isTrue();
      assertThat(r.isConfirmed(1)).as("k1's later event must not overtake: " + r).isFalse();
      assertThat(r.failures().get(1)).contains("earlier event of key k1");
      assertThat(r.isLost(1)).as("held back is not the record's fault: not charged").isTrue();
      assertThat(r.isConfirmed(2)).as("another key goes on: " + r).isTrue();
    }
  }

  @Test
  void aRowStaysPendingUnchargedWithItsReasonWhenTheClusterIsUnreachable() {
    String dest = PipelineNames.unique("nobroker");
    List<String> reasons = new java.util.concurrent.CopyOnWriteArrayList<>();
    try (TestDatabase db = TestDatabase.embedded();
        KafkaTransport nowhere =
            KafkaTransport.builder()
                .bootstrapServers("127.0.0.1:1")
                .deliveryTimeout(Duration.ofSeconds(2))
                .build();
        Once once =
            Once.builder()
                .dataSource(db.dataSource())
                .transport(nowhere)
                .destinations(dest)
                .confirmTimeout(Duration.ofSeconds(2))
                .listener(
                    new OnceListener() {
                      @Override
                      public void publishFailed(Event event, String reason) {
                        reasons.add(reason);
                      }
                    })
                .build()) {
      once.useTransaction(tx -> tx.publish(Event.of(EventId.of("x", dest), dest, "k", "X", "{}")));
      assertThat(once.newRelay().runOnce()).isZero();
      assertThat(reasons).as("the reason reaches the listener").hasSize(1);
      assertThat(
              db.count("SELECT count(*) FROM once_outbox WHERE sent_at IS NULL AND attempts = 0"))
          .as("pending, and not charged: an unreachable cluster says nothing about the row")
          .isEqualTo(1);
    }
  }

  private static ConsumerRecord<byte[], byte[]> readOne(String topic) {
    Properties p = new Properties();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, Broker.bootstrap());
    p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(p)) {
      TopicPartition tp = new TopicPartition(topic, 0);
      c.assign(List.of(tp));
      c.seekToBeginning(List.of(tp));
      List<ConsumerRecord<byte[], byte[]>> got = new ArrayList<>();
      long deadline = System.nanoTime() + Duration.ofSeconds(15).toNanos();
      while (got.isEmpty() && System.nanoTime() < deadline) {
        c.poll(Duration.ofMillis(200)).forEach(got::add);
      }
      assertThat(got).hasSize(1);
      return got.get(0);
    }
  }

  private static String text(byte[] b) {
    return new String(b, StandardCharsets.UTF_8);
  }
}
