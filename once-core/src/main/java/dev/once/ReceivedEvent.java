package dev.once;

/**
 * An event as a consumer's handler sees it: the event itself and facts about this delivery of it.
 * The identity is {@code event().id()}, never anything about the delivery.
 *
 * @param consumerId the consumer handling it
 * @param deliveryCount how many times the transport has handed this message out, this one included
 *     (1 on the first delivery)
 * @param redelivered whether the transport says it delivered this message before
 */
public record ReceivedEvent(
    String consumerId, Event event, int deliveryCount, boolean redelivered) {

  public EventId id() {
    return event.id();
  }

  /**
   * An outgoing event caused by this one, with an id derived from (consumer, this event's id,
   * {@code name}), so the handler emits the same id however often it runs. The key is kept.
   */
  public Event follow(String name, String destination, String type, String payload) {
    return Event.of(
        EventId.derive(consumerId, event.id(), name), destination, event.key(), type, payload);
  }
}
