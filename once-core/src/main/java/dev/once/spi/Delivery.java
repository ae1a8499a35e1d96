package dev.once.spi;

import dev.once.Event;

/**
 * One attempt by a broker to hand an event to a consumer group. Many deliveries, one event.
 *
 * @param event the event, with the id given at publication; for a malformed delivery a stand-in
 *     made by {@link MessageDecoder} (id {@code malformed:<hash>}, type {@value
 *     MessageDecoder#MALFORMED_TYPE}, the raw properties as headers)
 * @param deliveryCount how many times the broker handed it out, this one included, where the broker
 *     tracks it; otherwise 1, or 2 when {@code redelivered}
 * @param redelivered the broker's own flag
 * @param handle the transport's own reference (a delivery tag, a row id, an offset)
 * @param malformed why the message could not be decoded into an event, or null when it could: the
 *     consumer dead-letters such a delivery on its first delivery, then acknowledges it
 */
public record Delivery(
    Event event, int deliveryCount, boolean redelivered, Object handle, String malformed) {

  /** A delivery of a well-formed event. */
  public Delivery(Event event, int deliveryCount, boolean redelivered, Object handle) {
    this(event, deliveryCount, redelivered, handle, null);
  }

  public boolean isMalformed() {
    return malformed != null;
  }
}
