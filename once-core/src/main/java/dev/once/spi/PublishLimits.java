package dev.once.spi;

import dev.once.Event;

/**
 * A capability of a {@link Transport} whose broker cannot carry every valid event (RabbitMQ: ids,
 * types and header names are AMQP short strings of at most 255 bytes).
 */
public interface PublishLimits {

  /**
   * Refuses an event this transport could not carry, with an {@link dev.once.InvalidEventException}
   * naming the field. Called by {@code tx.publish}, before the outbox row is written, so that the
   * limit is never discovered by the relay (which checks rows written before the check too).
   */
  void checkPublishable(Event event);
}
