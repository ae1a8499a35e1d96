package dev.once.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.once.Event;
import dev.once.RetentionPolicy;
import dev.once.spi.BrokerDeadLetterReader;
import dev.once.spi.BrokerDeadLetters;
import dev.once.spi.ConnectionUse;
import dev.once.spi.DeliveryLimit;
import dev.once.spi.ForwardingTransport;
import dev.once.spi.InDatabasePublish;
import dev.once.spi.PublishLimits;
import dev.once.spi.PublishResult;
import dev.once.spi.QueueAdmin;
import dev.once.spi.Receiver;
import dev.once.spi.Replay;
import dev.once.spi.RetentionCheck;
import dev.once.spi.Transport;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/** The capability check fails for a decorator that drops one, and passes for a forwarding one. */
class TransportCapabilitiesTest {

  @Test
  void aDecoratorThatForwardsByHandDropsEveryCapabilityAndTheCheckNamesThem() {
    Transport all = new Everything();
    assertThatThrownBy(() -> TransportCapabilities.assertKept(all, new HandForwarding(all)))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("dropped PublishLimits, DeliveryLimit, RetentionCheck")
        .hasMessageContaining("BrokerDeadLetters")
        .hasMessageContaining("it has none")
        .hasMessageContaining("ForwardingTransport");
  }

  @Test
  void aDecoratorThatHidesOneCapabilityFailsTheCheckForThatOneOnly() {
    Transport all = new Everything();
    Transport hiding =
        new ForwardingTransport(all) {
          @Override
          public <C> Optional<C> capability(Class<C> type) {
            return type == RetentionCheck.class ? Optional.empty() : super.capability(type);
          }
        };
    assertThatThrownBy(() -> TransportCapabilities.assertKept(all, hiding))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("dropped RetentionCheck (");
  }

  @Test
  void forwardingTransportsCarryEveryCapabilityThroughAnyNumberOfWrappers() {
    Transport all = new Everything();
    Transport twice = new EarlyAckingTransport(new DuplicatingTransport(all, 0, 1));
    TransportCapabilities.assertKept(all, twice);
    assertThat(TransportCapabilities.of(twice))
        .containsExactlyElementsOf(TransportCapabilities.ALL);
    // found on the wrapped object itself (the in-database publish is DuplicatingTransport's own)
    assertThat(twice.capability(RetentionCheck.class)).containsSame((RetentionCheck) all);
    assertThat(twice.capability(Everything.class)).containsSame((Everything) all);
    assertThat(twice.capability(InDatabasePublish.class).orElseThrow())
        .isNotSameAs(all)
        .satisfies(p -> assertThat(p.publishesIn(null)).isTrue());
  }

  @Test
  void aCapabilityTheDecoratorImplementsItselfWinsOverTheWrappedOne() {
    Transport all = new Everything();
    final class FixedLimit extends ForwardingTransport implements DeliveryLimit {
      FixedLimit() {
        super(all);
      }

      @Override
      public int deliveryLimit() {
        return 3;
      }
    }
    assertThat(new FixedLimit().capability(DeliveryLimit.class).orElseThrow().deliveryLimit())
        .isEqualTo(3);
    assertThat(all.capability(DeliveryLimit.class).orElseThrow().deliveryLimit()).isEqualTo(20);
  }

  @Test
  void theDuplicatingTransportCopiesWhatARelayPublishesInItsTransactionAsWellAsThroughTheBroker()
      throws Exception {
    Everything all = new Everything();
    DuplicatingTransport twice = new DuplicatingTransport(all, 1.0, 1);
    List<Event> batch = List.of(Event.of(dev.once.EventId.of("d", 1), "orders", "k", "T", "{}"));
    twice.publish(batch, Duration.ofSeconds(1));
    twice.capability(InDatabasePublish.class).orElseThrow().publishInTransaction(null, batch);
    assertThat(all.published).hasValue(2);
    assertThat(all.publishedInDatabase).hasValue(2);
    assertThat(twice.duplicated()).isEqualTo(2);
  }

  @Test
  void aTransportWithoutCapabilitiesHasNoneAndLosesNoneWhenWrapped() {
    Transport bare = new HandForwarding(new Everything());
    assertThat(TransportCapabilities.of(bare)).isEmpty();
    TransportCapabilities.assertKept(bare, new HandForwarding(bare));
  }

  /**
   * {@link TransportCapabilities#ALL} lists every interface of the SPI that calls itself a
   * capability of a transport: a new capability cannot be left out of the decorator check.
   */
  @Test
  void theListOfCapabilitiesIsEveryCapabilityInterfaceOfTheSpi() throws IOException {
    Path spi = Path.of("../once-core/src/main/java/dev/once/spi");
    Set<String> declared;
    try (Stream<Path> files = Files.list(spi)) {
      declared =
          files
              .filter(f -> read(f).contains(" * A capability of a {@link Transport}"))
              .map(f -> f.getFileName().toString().replace(".java", ""))
              .collect(java.util.stream.Collectors.toSet());
    }
    assertThat(declared).hasSizeGreaterThanOrEqualTo(7);
    assertThat(TransportCapabilities.ALL.stream().map(Class::getSimpleName))
        .containsExactlyInAnyOrderElementsOf(declared);
  }

  private static String read(Path f) {
    try {
      return Files.readString(f);
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  /** What decorators looked like before: the five methods forwarded, the rest forgotten. */
  private record HandForwarding(Transport delegate) implements Transport {
    @Override
    public String name() {
      return delegate.name();
    }

    @Override
    public void declare(String destination, String consumerId) {
      delegate.declare(destination, consumerId);
    }

    @Override
    public PublishResult publish(List<Event> batch, Duration confirmTimeout) {
      return delegate.publish(batch, confirmTimeout);
    }

    @Override
    public Receiver receiver(String destination, String consumerId) {
      return delegate.receiver(destination, consumerId);
    }

    @Override
    public void close() {
      delegate.close();
    }
  }

  /** A transport with every capability, none of them used beyond its answer. */
  private static final class Everything
      implements Transport,
          PublishLimits,
          DeliveryLimit,
          RetentionCheck,
          InDatabasePublish,
          dev.once.spi.InDatabaseAck,
          Replay,
          QueueAdmin,
          BrokerDeadLetters,
          ConnectionUse,
          dev.once.spi.KeyOrder,
          dev.once.spi.QueueOrder {
    final AtomicInteger published = new AtomicInteger();
    final AtomicInteger publishedInDatabase = new AtomicInteger();

    @Override
    public String name() {
      return "everything";
    }

    @Override
    public void declare(String destination, String consumerId) {}

    @Override
    public PublishResult publish(List<Event> batch, Duration confirmTimeout) {
      published.addAndGet(batch.size());
      return PublishResult.allConfirmed(batch.size());
    }

    @Override
    public Receiver receiver(String destination, String consumerId) {
      throw new UnsupportedOperationException();
    }

    @Override
    public void checkPublishable(Event event) {}

    @Override
    public int deliveryLimit() {
      return 20;
    }

    @Override
    public void checkRetention(RetentionPolicy retention) {}

    @Override
    public boolean publishesIn(DataSource dataSource) {
      return true;
    }

    @Override
    public PublishResult publishInTransaction(Connection c, List<Event> batch) {
      publishedInDatabase.addAndGet(batch.size());
      return PublishResult.allConfirmed(batch.size());
    }

    @Override
    public void publishedInTransaction() {}

    @Override
    public boolean acksIn(DataSource dataSource) {
      return true;
    }

    @Override
    public void ackInTransaction(
        Connection c,
        String destination,
        String consumerId,
        List<dev.once.spi.Delivery> deliveries) {}

    @Override
    public PublishResult redeliver(Event event, String consumerId, Duration confirmTimeout) {
      return PublishResult.allConfirmed(1);
    }

    @Override
    public OptionalLong depth(String destination, String consumerId) {
      return OptionalLong.of(0);
    }

    @Override
    public void purge(String destination, String consumerId) {}

    @Override
    public long count(String destination, String consumerId) {
      return 0;
    }

    @Override
    public BrokerDeadLetterReader reader(String destination, String consumerId) {
      throw new UnsupportedOperationException();
    }

    @Override
    public void deliverInKeyOrder(String destination, String consumerId) {}

    @Override
    public void deliverInQueueOrder(String destination, String consumerId, int batch) {}

    @Override
    public int perPublish(javax.sql.DataSource dataSource) {
      return 0;
    }

    @Override
    public int heldWhileReceiving(javax.sql.DataSource dataSource) {
      return 0;
    }

    @Override
    public int notifying(javax.sql.DataSource dataSource) {
      return 0;
    }

    @Override
    public void close() {}
  }
}
