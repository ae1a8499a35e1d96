package dev.once.internal.wiring;

import dev.once.ConfigurationException;
import dev.once.ConsumerConfig;
import dev.once.spi.DeliveryLimit;
import dev.once.spi.Transport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A consumer against its transport's delivery limit (RabbitMQ's {@code x-delivery-limit}). A
 * message that kills the process is dead-lettered by Once at its delivery {@code maxAttempts +
 * rounds + 2} (one that crashes a batch, {@code rounds = log2(batchSize)} groups that halve until
 * it runs alone, {@code maxAttempts} alone, then the dead letter); the innocents of its batch come
 * back once per round. A broker that gives up before that dead-letters them on its own (it may
 * deliver a message {@code limit + 1} times): refused. The broker also counts the returns Once does
 * not charge (a crash of a worker that holds the message, a cut connection): a limit within {@value
 * #ROOM} times that bound is accepted with a WARN.
 */
final class DeliveryLimitCheck {
  private static final Logger log = LoggerFactory.getLogger(DeliveryLimitCheck.class);

  /** How many times Once's own bound a limit should be, for the returns it does not charge. */
  static final int ROOM = 10;

  private DeliveryLimitCheck() {}

  static void check(Transport transport, ConsumerConfig c) {
    DeliveryLimit capability = transport.capability(DeliveryLimit.class).orElse(null);
    if (capability == null) {
      return;
    }
    int limit = capability.deliveryLimit();
    int max = c.retry().maxAttempts();
    int rounds = 31 - Integer.numberOfLeadingZeros(c.batchSize());
    int needed = max + rounds + 2;
    if (limit + 1 < needed) {
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
              + limit
              + " allows: lower maxAttempts or batchSize, or raise the transport's deliveryLimit to"
              + " at least "
              + (needed - 1));
    }
    if (limit < ROOM * needed) {
      log.warn(
          "consumer '{}': the {} delivery limit {} is close to the {} deliveries Once may need for a"
              + " poison (maxAttempts {} + log2(batchSize {}) + 2); the broker counts every return"
              + " of a message, also those Once does not charge (a crash of a worker that holds it,"
              + " a cut connection), and past the limit dead-letters an innocent on its own, outside"
              + " Once's dead letters: raise deliveryLimit to {} or more",
          c.consumerId(),
          transport.name(),
          limit,
          needed,
          max,
          c.batchSize(),
          ROOM * needed);
    }
  }
}
