package dev.once.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.once.Consumer;
import dev.once.Once;
import dev.once.Relay;
import dev.once.RetryPolicy;
import dev.once.kafka.embedded.EmbeddedKafka;
import dev.once.test.TestDatabase;
import dev.once.testkit.TcpProxy;
import java.nio.file.Files;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The relay's producer loses the cluster in the middle of a publish, again and again: a proxy of
 * the test (clients are told to reach the broker through it) goes silent while a batch is out, so
 * the batch is not acknowledged within the confirm timeout, and then resets the connections. A
 * retriable error, a disconnect and no answer in time say nothing about the records: they are
 * published again without being charged, so no healthy event is parked as a dead letter (with the
 * relay's default of 10 attempts, 10 such losses parked them before). Only an error about the
 * record itself (too large) is charged, see {@code RelayToKafkaTest}.
 */
class PublishConnectionLostTest {
  private static final int EVENTS = 100;
  private static final int LOSSES = 20;

  @Test
  void twentyPublishesLostToASilentClusterChargeNoRowAndParkNone() throws Exception {
    String dest = PipelineNames.unique("lost");
    EmbeddedKafka kafka = EmbeddedKafka.in(Files.createTempDirectory("once-kafka-lost"));
    try (TcpProxy proxy = TcpProxy.to("127.0.0.1", kafka.port());
        EmbeddedKafka started = kafka.advertise(proxy.port()).start();
        TestDatabase db = TestDatabase.embedded();
        KafkaTransport transport =
            KafkaTransport.builder()
                .bootstrapServers("127.0.0.1:" + proxy.port())
                .partitions(2)
                .deliveryTimeout(Duration.ofSeconds(2)) // the producer gives a silent link up soon
                .property("max.block.ms", "300") // a send waits for metadata no longer than that
                .sessionTimeout(Duration.ofSeconds(10))
                .commitInterval(Duration.ofMillis(100))
                .build()) {
      Flow.createEffects(db);
      Once once =
          Once.builder()
              .dataSource(db.dataSource())
              .transport(transport)
              .destinations(dest)
              .confirmTimeout(Duration.ofMillis(300))
              .relayRetry( // the default 10 attempts, retried at once: charges show quickly
                  RetryPolicy.builder()
                      .maxAttempts(10)
                      .backoff(Duration.ofMillis(10), Duration.ofMillis(20))
                      .build())
              .build();
      try (Consumer consumer = Flow.consumer(once, dest, 2)) {
        Flow.produce(once, dest, 0, EVENTS, 10);
        // the producer knows the cluster (connections, metadata) before it goes silent: the
        // batches are lost in flight, not refused at the door
        assertThat(
                transport
                    .publish(List.of(Flow.event(dest, EVENTS, 10)), Duration.ofSeconds(30))
                    .isConfirmed(0))
            .isTrue();
        Relay relay = once.newRelay();
        long[] millis = new long[LOSSES];
        for (int i = 0; i < LOSSES; i++) {
          proxy.partition();
          long start = System.nanoTime();
          assertThat(relay.runOnce()).as("confirmed through a silent cluster").isZero();
          millis[i] = (System.nanoTime() - start) / 1_000_000;
          proxy.heal();
        }
        // the confirm timeout (300 ms) bounds a batch, not the producer's delivery timeout (2 s):
        // a flush on the relay's thread made the first lost batch wait 2 022 ms (the rest 301–306)
        assertThat(Arrays.stream(millis).max().orElseThrow())
            .as("ms of the slowest batch lost to a silent cluster " + Arrays.toString(millis))
            .isLessThan(1_700);
        assertThat(db.count("SELECT count(*) FROM once_dead_letter"))
            .as("events parked as dead letters")
            .isZero();
        assertThat(db.count("SELECT coalesce(max(attempts), 0) FROM once_outbox"))
            .as("attempts charged to an outbox row")
            .isZero();

        consumer.start();
        await()
            .atMost(Duration.ofSeconds(60))
            .pollInterval(Duration.ofMillis(50))
            .until(
                () -> {
                  try {
                    relay.runOnce();
                  } catch (RuntimeException e) {
                    // the producer is still giving up on a silent connection
                  }
                  return Flow.pending(db) == 0 && Flow.distinctEffects(db) >= EVENTS + 1;
                });
        // late copies of the lost batches are in the topic: counted once the group has committed
        // every record up to its end (the inbox absorbed them), so a double would show now
        await()
            .atMost(Duration.ofSeconds(60))
            .pollInterval(Duration.ofMillis(100))
            .until(() -> transport.depth(dest, "warehouse").orElse(-1) == 0);
        assertThat(Flow.pending(db)).as("outbox rows not sent").isZero();
        assertThat(Flow.distinctEffects(db)).as("events processed").isEqualTo(EVENTS + 1);
        assertThat(Flow.effects(db)).as("effects (a double would show here)").isEqualTo(EVENTS + 1);
      } finally {
        once.close();
      }
    }
  }
}
