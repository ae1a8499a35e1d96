package dev.once.spi;

import java.time.Instant;

/**
 * A message the broker dead-lettered on its own (RabbitMQ: a reject, the delivery limit), read back
 * from the broker's dead-letter place by a {@link BrokerDeadLetterReader}.
 *
 * @param delivery the message as {@link MessageDecoder} decodes it: Once's own or a foreign event,
 *     or a malformed delivery with its stand-in event; its handle is the reader's
 * @param queue the queue it died in, as the broker records it, or null
 * @param reason why, in the broker's words (RabbitMQ: {@code rejected}, {@code delivery_limit},
 *     {@code expired}, {@code maxlen}), or null
 * @param deadAt when the broker dead-lettered it, or null when it does not say
 * @param deaths how many times the broker dead-lettered it (1 when it does not say)
 */
public record BrokerDeadLetter(
    Delivery delivery, String queue, String reason, Instant deadAt, long deaths) {}
