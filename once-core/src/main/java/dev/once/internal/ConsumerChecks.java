package dev.once.internal;

import dev.once.ConfigurationException;
import dev.once.ConsumerConfig;
import dev.once.spi.DeliveryLimit;
import dev.once.spi.Transport;
import java.util.OptionalInt;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * What {@code Once.consumer} refuses before a consumer exists: a retry budget the transport's
 * delivery limit cuts short, and one consumer id on two destinations.
 */
final class ConsumerChecks {
  private final Transport transport;
  private final ConcurrentMap<String, String> subscriptions = new ConcurrentHashMap<>();

  ConsumerChecks(Transport transport) {
    this.transport = transport;
  }

  /** Fails with a {@link ConfigurationException} naming the setting and its value. */
  void check(ConsumerConfig c) {
    deliveryLimit(c);
    oneDestination(c);
  }

  /**
   * A message that kills the process is dead-lettered by Once at its delivery {@code maxAttempts +
   * rounds + 2} (one that crashes a batch, {@code rounds = log2(batchSize)} groups that halve until
   * it runs alone, {@code maxAttempts} alone, then the dead letter); the innocents of its batch
   * come back once per round. A broker that gives up before that dead-letters them on its own (it
   * may deliver a message {@code limit + 1} times).
   */
  private void deliveryLimit(ConsumerConfig c) {
    OptionalInt limit =
        transport
            .capability(DeliveryLimit.class)
            .map(d -> OptionalInt.of(d.deliveryLimit()))
            .orElse(OptionalInt.empty());
    int max = c.retry().maxAttempts();
    int rounds = 31 - Integer.numberOfLeadingZeros(c.batchSize());
    int needed = max + rounds + 2;
    if (limit.isPresent() && limit.getAsInt() + 1 < needed) {
      throw new ConfigurationException(
          "consumer.retry.maxAttempts",
          "is "
              + max
              + " for consumer '"
              + c.consumerId()
              + "' with batchSize "
              + c.batchSize()
              + ": a message that kills the process may be delivered "
              + needed
              + " times before Once dead-letters it (maxAttempts + log2(batchSize) + 2), more than"
              + " the "
              + transport.name()
              + " delivery limit "
              + limit.getAsInt()
              + " allows: lower maxAttempts or batchSize, or raise the transport's deliveryLimit to"
              + " at least "
              + (needed - 1));
    }
  }

  /**
   * The inbox key is (consumer id, event id): one consumer id on two destinations would make an
   * event of the second with the id of one of the first a false DUPLICATE. Refused.
   */
  private void oneDestination(ConsumerConfig c) {
    String before = subscriptions.putIfAbsent(c.consumerId(), c.destination());
    if (before != null && !before.equals(c.destination())) {
      throw new ConfigurationException(
          "consumer.destination",
          "'"
              + c.destination()
              + "' is refused for consumer '"
              + c.consumerId()
              + "', which subscribes to '"
              + before
              + "' already: markers are kept per (consumer id, event id), so an event id seen on"
              + " both would count as a duplicate; give each destination its own consumer id");
    }
  }
}
