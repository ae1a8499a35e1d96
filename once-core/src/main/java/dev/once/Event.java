package dev.once;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * An event to publish, or one received: a stable {@link EventId}, the destination it goes to, an
 * optional ordering key (events with the same key are published in order), a type name, an opaque
 * payload and string headers. Build one by name with {@link #builder()}:
 *
 * <pre>{@code
 * Event.builder().id(EventId.of("order-paid", 814)).destination("orders").key(814)
 *     .payload(new OrderPaid(814, 1200)).build();   // type "OrderPaid", JSON through the codec
 * }</pre>
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

  /** Starts an event, every part named: {@code Event.builder().id(..).destination(..)…build()}. */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * An event with a UTF-8 text payload (typically JSON) and no headers. {@link #builder()} names
   * each part, so that a destination and a type cannot be swapped unnoticed.
   */
  public static Event of(EventId id, String destination, String key, String type, String payload) {
    return new Event(id, destination, key, type, utf8(payload), Map.of());
  }

  /**
   * This event's outbox partition among {@code partitions} ({@link OnceBuilder#partitions}): events
   * with the same key share one, so that a relay publishes them in order; an event without a key is
   * placed by its id. {@link Tx#publish} writes it; this is the rule for anything else that writes
   * outbox rows (a bulk load, a benchmark's ceiling).
   */
  public int partition(int partitions) {
    if (partitions < 1) {
      throw new IllegalArgumentException("partitions must be >= 1, was " + partitions);
    }
    return Math.floorMod((key != null ? key : id.value()).hashCode(), partitions);
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

  /** Names the parts of an {@link Event}; {@link #build()} validates them as the record does. */
  public static final class Builder {
    private EventId id;
    private String destination;
    private String key;
    private String type;
    private byte[] payload;
    private Object value;
    private PayloadCodec codec;
    private final Map<String, String> headers = new LinkedHashMap<>();

    private Builder() {}

    /** The stable identity, fixed before the first publication. Required. */
    public Builder id(EventId id) {
      this.id = id;
      return this;
    }

    /** Where it goes (declared with {@link OnceBuilder#destinations}). Required. */
    public Builder destination(String destination) {
      this.destination = destination;
      return this;
    }

    /** The ordering key: events with the same key are published in order. Optional. */
    public Builder key(Object key) {
      this.key = key == null ? null : key.toString();
      return this;
    }

    /** The type name. Required, except with a typed {@link #payload(Object)}: its class's name. */
    public Builder type(String type) {
      this.type = type;
      return this;
    }

    /** A raw payload. */
    public Builder payload(byte[] payload) {
      this.payload = payload;
      this.value = null;
      return this;
    }

    /** A UTF-8 text payload, typically JSON. */
    public Builder payload(String text) {
      return payload(utf8(text));
    }

    /**
     * A typed payload (a record, a POJO), encoded at {@link #build()} by the {@link #codec} or the
     * one found on the classpath ({@link PayloadCodec#discover()}); its content type goes to the
     * {@value PayloadCodec#CONTENT_TYPE_HEADER} header.
     */
    public Builder payload(Object value) {
      if (value instanceof String text) {
        return payload(text);
      }
      if (value instanceof byte[] bytes) {
        return payload(bytes);
      }
      this.value = value;
      this.payload = null;
      return this;
    }

    /** The codec of a typed payload. Default: {@link PayloadCodec#discover()}. */
    public Builder codec(PayloadCodec codec) {
      this.codec = codec;
      return this;
    }

    public Builder header(String name, String value) {
      headers.put(name, value);
      return this;
    }

    /**
     * @throws InvalidEventException naming the missing or bad part
     * @throws ConfigurationException if a typed payload has no codec
     */
    public Event build() {
      byte[] bytes = payload;
      String eventType = type;
      if (value != null) {
        PayloadCodec c = codec != null ? codec : PayloadCodec.discover();
        try {
          bytes = c.encode(value);
        } catch (Exception e) {
          throw new InvalidEventException(
              "event.payload",
              "cannot be encoded by "
                  + c.getClass().getName()
                  + " ("
                  + value.getClass().getName()
                  + "): "
                  + e.getClass().getName());
        }
        headers.put(PayloadCodec.CONTENT_TYPE_HEADER, c.contentType());
        eventType = eventType != null ? eventType : value.getClass().getSimpleName();
      }
      return new Event(id, destination, key, eventType, bytes, headers);
    }
  }
}
