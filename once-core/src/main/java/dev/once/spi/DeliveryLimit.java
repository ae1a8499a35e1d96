package dev.once.spi;

/**
 * A capability of a {@link Transport} whose broker dead-letters a message itself after a number of
 * deliveries (RabbitMQ's quorum queue {@code x-delivery-limit}).
 */
public interface DeliveryLimit {

  /**
   * How many deliveries of one message the broker allows before it dead-letters the message itself.
   * A consumer whose {@code maxAttempts} is not below it could never dead-letter a poison message
   * that kills its process: {@code Once.consumer(..)} refuses it.
   */
  int deliveryLimit();
}
