package dev.once.internal.wiring;

import dev.once.ConfigurationException;
import dev.once.ConsumerConfig;
import dev.once.OnceConfig;
import dev.once.UnknownDestinationException;
import dev.once.internal.KeyOrderedDestinations;
import dev.once.jdbc.Dialect;
import dev.once.spi.KeyOrder;
import dev.once.spi.QueueOrder;
import dev.once.spi.Transport;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import javax.sql.DataSource;

/**
 * What {@code Once.consumer} refuses before a consumer exists: a retry budget the transport's
 * delivery limit cuts short (see {@link DeliveryLimitCheck}), one consumer id on two destinations,
 * a destination the instance did not declare, and an ordered consumer on a transport that cannot
 * order (an ordered one it can order is switched to key order at its transport here).
 */
final class ConsumerChecks {
  private final Transport transport;
  private final Set<String> declared;
  private final KeyOrderedDestinations keyOrdered;
  private final ConcurrentMap<String, String> subscriptions = new ConcurrentHashMap<>();

  ConsumerChecks(Transport transport, OnceConfig config, DataSource dataSource, Dialect dialect) {
    this.transport = transport;
    this.declared = config.destinations();
    this.keyOrdered = new KeyOrderedDestinations(dataSource, dialect, config.clock());
  }

  /** The key-ordered destinations ordered consumers mark, which relays read. */
  KeyOrderedDestinations keyOrdered() {
    return keyOrdered;
  }

  /**
   * Fails with a {@link ConfigurationException} naming the setting and its value, or an {@link
   * UnknownDestinationException}.
   */
  void check(ConsumerConfig c) {
    declared(c);
    DeliveryLimitCheck.check(transport, c);
    oneDestination(c);
    ordered(c);
  }

  /**
   * An ordered consumer needs a transport that delivers in key order, or one that hands a group's
   * messages to one receiver at a time in queue order (they then run from a key lane in Once's
   * database): the promise is refused where it would not be kept. Its destination is marked
   * key-ordered, so that relays hold a key's later rows behind one in publish backoff or parked.
   */
  private void ordered(ConsumerConfig c) {
    if (!c.ordered()) {
      return;
    }
    Optional<KeyOrder> keyOrder = transport.capability(KeyOrder.class);
    Optional<QueueOrder> queueOrder = transport.capability(QueueOrder.class);
    if (keyOrder.isPresent()) {
      keyOrder.get().deliverInKeyOrder(c.destination(), c.consumerId());
    } else if (queueOrder.isPresent()) {
      queueOrder.get().deliverInQueueOrder(c.destination(), c.consumerId());
    } else {
      throw new ConfigurationException(
          "consumer.ordered",
          "true is refused for consumer '"
              + c.consumerId()
              + "': transport "
              + transport.name()
              + " does not deliver in key order (ordered consumers run on the table queue, on"
              + " RabbitMQ, on SQS FIFO queues and on Kafka)");
    }
    keyOrdered.mark(c.destination(), c.consumerId());
  }

  /**
   * An instance that declares destinations subscribes to those only, as it publishes to those only:
   * a misspelled subscription would otherwise bind a queue no one publishes to and wait on it in
   * silence. An instance that declares none (one that only consumes) subscribes anywhere.
   */
  private void declared(ConsumerConfig c) {
    if (!declared.isEmpty() && !declared.contains(c.destination())) {
      throw new UnknownDestinationException(
          c.destination(),
          new TreeSet<>(declared),
          "consumer '"
              + c.consumerId()
              + "' subscribes to it; an instance that declares destinations subscribes to those"
              + " only: correct the name or add it with Once.builder().destinations(...)");
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
