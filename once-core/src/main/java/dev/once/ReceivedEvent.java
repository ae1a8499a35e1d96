package dev.once;

/**
 * An event as a consumer's handler sees it: the event itself and facts about this delivery of it.
 * The identity is {@link #id()}, never anything about the delivery.
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

  /** The ordering key (null if the event has none). */
  public String key() {
    return event.key();
  }

  public String type() {
    return event.type();
  }

  /** The payload decoded as UTF-8 text. */
  public String payloadText() {
    return event.payloadText();
  }

  /**
   * Starts an outgoing event caused by this one, with an id derived from (consumer, this event's
   * id, {@code name}) — so the handler emits the same id however often it runs — and this event's
   * key. Give it a destination, a type and a payload:
   *
   * <pre>{@code
   * tx.publish(event.follow("dispatch-queued").destination("dispatch").type("DispatchQueued")
   *     .payload(json).build());
   * }</pre>
   */
  public Event.Builder follow(String name) {
    return Event.builder().id(EventId.derive(consumerId, event.id(), name)).key(event.key());
  }
}
