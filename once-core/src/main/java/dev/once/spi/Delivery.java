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
 */
public record Delivery(Event event, int deliveryCount, boolean redelivered, Object handle) {}
