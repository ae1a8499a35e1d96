package dev.once.micrometer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.once.Event;
import dev.once.spi.BrokerDeadLetterReader;
import dev.once.spi.BrokerDeadLetters;
import dev.once.spi.PublishResult;
import dev.once.spi.Receiver;
import dev.once.spi.Transport;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * The broker's own dead letters show as a gauge per consumer group. (A stand-in transport: the
 * RabbitMQ count itself is tested against the real broker in once-rabbitmq's
 * BrokerDeadLettersTest.)
 */
class BrokerDeadLetterGaugesTest {

  @Test
  void theBrokersOwnDeadLettersAreAGaugePerConsumerGroupWithItsAge() {
    AtomicLong inDlq = new AtomicLong(0);
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    try (BrokerDeadLetterGauges g =
        BrokerDeadLetterGauges.bind(
            registry,
            new CountingTransport(inDlq, null),
            Map.of("warehouse", "orders"),
            Duration.ofHours(1))) {
      inDlq.set(3);
      g.refresh();
      assertThat(gauge(registry, "once.broker.dead.letters")).isEqualTo(3.0);
      assertThat(gauge(registry, "once.broker.dead.letters.age")).isBetween(0.0, 5.0);
    }
  }

  @Test
  void aScrapeReadsTheLastValueAndNeverWaitsForABrokerThatDoesNotAnswer() throws Exception {
    CountDownLatch answers = new CountDownLatch(1); // the broker answers once, then never again
    AtomicLong inDlq = new AtomicLong(2);
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    CountingTransport broker = new CountingTransport(inDlq, answers);
    try (BrokerDeadLetterGauges g =
        BrokerDeadLetterGauges.bind(
            registry, broker, Map.of("warehouse", "orders"), Duration.ofMillis(10))) {
      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> gauge(registry, "once.broker.dead.letters") == 2.0);
      // the second read has begun: the background read now waits for the broker, for good
      await().atMost(Duration.ofSeconds(10)).until(() -> broker.reads().get() >= 2);
      assertTimeoutPreemptively(
          Duration.ofSeconds(1),
          () -> assertThat(gauge(registry, "once.broker.dead.letters")).isEqualTo(2.0),
          "a scrape waited for the broker");
      // the value's age keeps counting from the last answer: it is not shown as fresh
      await()
          .atMost(Duration.ofSeconds(10))
          .untilAsserted(
              () ->
                  assertThat(
                          assertTimeoutPreemptively(
                              Duration.ofSeconds(1),
                              () -> gauge(registry, "once.broker.dead.letters.age"),
                              "a scrape waited for the broker"))
                      .isGreaterThan(0.15));
      assertThat(broker.reads().get()).as("reads: the hanging one still hangs").isEqualTo(2);
    } finally {
      answers.countDown();
    }
  }

  private static double gauge(SimpleMeterRegistry registry, String name) {
    return registry.get(name).tag("consumer", "warehouse").gauge().value();
  }

  @Test
  void noGaugeForATransportWithoutDeadLettersOfItsOwn() {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    BrokerDeadLetterGauges.bind(
        registry, new CountingTransport(null, null), Map.of("warehouse", "orders"));
    assertThat(registry.find("once.broker.dead.letters").gauges()).isEmpty();
  }

  /**
   * A broker with dead letters of its own, or (count null) one without; with {@code hang}, it
   * answers once and then waits until the latch opens, as a half-open connection does.
   */
  private record CountingTransport(AtomicLong count, CountDownLatch hang, AtomicLong reads)
      implements Transport, BrokerDeadLetters {
    CountingTransport(AtomicLong count, CountDownLatch hang) {
      this(count, hang, new AtomicLong());
    }

    @Override
    public String name() {
      return "counting";
    }

    @Override
    public void declare(String destination, String consumerId) {}

    @Override
    public PublishResult publish(List<Event> batch, Duration confirmTimeout) {
      throw new UnsupportedOperationException();
    }

    @Override
    public Receiver receiver(String destination, String consumerId) {
      throw new UnsupportedOperationException();
    }

    @Override
    public <C> Optional<C> capability(Class<C> type) {
      return count == null && type == BrokerDeadLetters.class
          ? Optional.empty()
          : Transport.super.capability(type);
    }

    @Override
    public long count(String destination, String consumerId) {
      if (hang != null && reads.getAndIncrement() > 0) {
        try {
          hang.await();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new IllegalStateException("interrupted");
        }
      }
      return count.get();
    }

    @Override
    public BrokerDeadLetterReader reader(String destination, String consumerId) {
      throw new UnsupportedOperationException();
    }

    @Override
    public void close() {}
  }
}
