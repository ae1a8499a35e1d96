package dev.once.internal;

import dev.once.ConfigurationException;
import dev.once.ConsumerConfig;
import dev.once.spi.Transport;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * What {@code Once.consumer} refuses before a consumer exists: a retry budget the transport's
 * delivery limit cuts short (see {@link DeliveryLimitCheck}), and one consumer id on two
 * destinations.
 */
final class ConsumerChecks {
  private final Transport transport;
  private final ConcurrentMap<String, String> subscriptions = new ConcurrentHashMap<>();

  ConsumerChecks(Transport transport) {
    this.transport = transport;
  }

  /** Fails with a {@link ConfigurationException} naming the setting and its value. */
  void check(ConsumerConfig c) {
    DeliveryLimitCheck.check(transport, c);
    oneDestination(c);
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
