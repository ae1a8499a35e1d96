package dev.once;

/**
 * A payload that the codec cannot turn into the handler's type. Retrying cannot fix the same bytes,
 * so the delivery is dead-lettered at its first failure. The message names the event, the type and
 * the codec's error class, never a value of the payload (codec messages often quote the input).
 */
public class PayloadDecodingException extends OnceException {
  private static final long serialVersionUID = 1L;
  private final EventId eventId;

  public PayloadDecodingException(Event event, Class<?> type, Exception codecError) {
    super(
        "payload of event "
            + event.id()
            + " ("
            + event.type()
            + ", "
            + event.payload().length
            + " bytes) cannot be decoded as "
            + type.getName()
            + ": "
            + codecError.getClass().getName());
    this.eventId = event.id();
  }

  public EventId eventId() {
    return eventId;
  }
}
