package dev.once.micrometer;

import static org.assertj.core.api.Assertions.assertThat;

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
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * The broker's own dead letters show as a gauge per consumer group. (A stand-in transport: the
 * RabbitMQ count itself is tested against the real broker in once-rabbitmq's
 * BrokerDeadLettersTest.)
 */
class BrokerDeadLetterGaugesTest {

  @Test
  void theBrokersOwnDeadLettersAreAGaugePerConsumerGroup() {
    AtomicLong inDlq = new AtomicLong(0);
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    BrokerDeadLetterGauges.bind(
        registry, new CountingTransport(inDlq), Map.of("warehouse", "orders"));
    inDlq.set(3);
    assertThat(
            registry.get("once.broker.dead.letters").tag("consumer", "warehouse").gauge().value())
        .isEqualTo(3.0);
  }

  @Test
  void noGaugeForATransportWithoutDeadLettersOfItsOwn() {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    BrokerDeadLetterGauges.bind(
        registry, new CountingTransport(null), Map.of("warehouse", "orders"));
    assertThat(registry.find("once.broker.dead.letters").gauges()).isEmpty();
  }

  /** A broker with dead letters of its own, or (count null) one without. */
  private record CountingTransport(AtomicLong count) implements Transport, BrokerDeadLetters {
    @Override
    public String name() {
      return "counting";
    }

    @Override
    public void declare(String destination, String consumerGroup) {}

    @Override
    public PublishResult publish(List<Event> batch, Duration confirmTimeout) {
      throw new UnsupportedOperationException();
    }

    @Override
    public Receiver receiver(String destination, String consumerGroup) {
      throw new UnsupportedOperationException();
    }

    @Override
    public <C> Optional<C> capability(Class<C> type) {
      return count == null && type == BrokerDeadLetters.class
          ? Optional.empty()
          : Transport.super.capability(type);
    }

    @Override
    public long count(String destination, String consumerGroup) {
      return count.get();
    }

    @Override
    public BrokerDeadLetterReader reader(String destination, String consumerGroup) {
      throw new UnsupportedOperationException();
    }

    @Override
    public void close() {}
  }
}
