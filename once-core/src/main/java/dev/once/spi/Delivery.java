package dev.once.spi;

import dev.once.Event;

/**
 * One attempt by a broker to hand an event to a consumer group. Many deliveries, one event.
 *
 * @param event the event, with the id given at publication
 * @param deliveryCount how many times the broker handed it out, this one included, where the broker
 *     tracks it; otherwise 1, or 2 when {@code redelivered}
 * @param redelivered the broker's own flag
 * @param handle the transport's own reference (a delivery tag, a row id, an offset)
 * @param undecodable null for a normal delivery; otherwise why the transport could not read the
 *     message (no event id, bad bytes): the consumer dead-letters it on this first delivery without
 *     calling a handler, and {@code event} is a stand-in the transport built from what it could
 *     read
 */
public record Delivery(
    Event event, int deliveryCount, boolean redelivered, Object handle, String undecodable) {

  public Delivery(Event event, int deliveryCount, boolean redelivered, Object handle) {
    this(event, deliveryCount, redelivered, handle, null);
  }

  /** A message the transport could not decode: a dead letter at once, {@code reason} says why. */
  public static Delivery undecodable(Event standIn, String reason, Object handle) {
    return new Delivery(standIn, 1, false, handle, reason);
  }
}
