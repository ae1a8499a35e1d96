package dev.once;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Map;
import java.util.Objects;

/**
 * An event to publish, or one received: a stable {@link EventId}, the destination it goes to, an
 * optional ordering key (events with the same key are published in order), a type name, an opaque
 * payload and string headers.
 */
public record Event(
    EventId id,
    String destination,
    String key,
    String type,
    byte[] payload,
    Map<String, String> headers) {

  /** The largest payload accepted, in bytes. Larger business data belongs in a table. */
  public static final int MAX_PAYLOAD_BYTES = 1 << 20;

  public Event {
    if (id == null) {
      throw new InvalidEventException("event.id", "must not be null");
    }
    EventId.validate("event.destination", destination);
    if (key != null) {
      EventId.validate("event.key", key);
    }
    EventId.validate("event.type", type);
    payload = payload == null ? new byte[0] : payload;
    if (payload.length > MAX_PAYLOAD_BYTES) {
      throw new InvalidEventException(
          "event.payload",
          "is "
              + payload.length
              + " bytes, the limit is "
              + MAX_PAYLOAD_BYTES
              + " (event "
              + id
              + ")");
    }
    headers = headers == null ? Map.of() : Map.copyOf(headers);
  }

  /** An event with a UTF-8 text payload (typically JSON) and no headers. */
  public static Event of(EventId id, String destination, String key, String type, String payload) {
    return new Event(id, destination, key, type, utf8(payload), Map.of());
  }

  /** The payload decoded as UTF-8. */
  public String payloadText() {
    return new String(payload, StandardCharsets.UTF_8);
  }

  public Event withHeaders(Map<String, String> newHeaders) {
    return new Event(id, destination, key, type, payload, newHeaders);
  }

  static byte[] utf8(String text) {
    return text == null ? new byte[0] : text.getBytes(StandardCharsets.UTF_8);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Event e
        && id.equals(e.id)
        && destination.equals(e.destination)
        && Objects.equals(key, e.key)
        && type.equals(e.type)
        && Arrays.equals(payload, e.payload)
        && headers.equals(e.headers);
  }

  @Override
  public int hashCode() {
    return Objects.hash(id, destination, key, type, Arrays.hashCode(payload), headers);
  }

  /** Never prints the payload: it may be private. */
  @Override
  public String toString() {
    return "Event[id="
        + id
        + ", destination="
        + destination
        + ", key="
        + key
        + ", type="
        + type
        + ", payload="
        + payload.length
        + " bytes]";
  }
}
