package dev.once.rabbitmq.internal;

import com.rabbitmq.client.AMQP;
import dev.once.Event;
import dev.once.EventId;
import java.nio.charset.StandardCharsets;
import java.util.Date;
import java.util.HashMap;
import java.util.Map;

/**
 * Event ↔ AMQP message. The event id goes in {@code message-id} and in the header {@code
 * once-event-id}; the type in {@code type}; the key in the header {@code once-key} (and as routing
 * key when it fits); the event's own headers as AMQP headers. Messages are persistent.
 */
public final class MessageCodec {
  static final String EVENT_ID = "once-event-id";
  static final String KEY = "once-key";
  static final String CONTENT_TYPE = "content-type";
  private static final int MAX_ROUTING_KEY_BYTES = 255;

  private final String defaultContentType;

  public MessageCodec(String defaultContentType) {
    this.defaultContentType = defaultContentType;
  }

  public AMQP.BasicProperties properties(Event event, long nowMillis) {
    Map<String, Object> headers = new HashMap<>(event.headers());
    headers.put(EVENT_ID, event.id().value());
    if (event.key() != null) {
      headers.put(KEY, event.key());
    }
    return new AMQP.BasicProperties.Builder()
        .messageId(event.id().value())
        .type(event.type())
        .contentType(event.headers().getOrDefault(CONTENT_TYPE, defaultContentType))
        .deliveryMode(2)
        .timestamp(new Date(nowMillis))
        .appId("once")
        .headers(headers)
        .build();
  }

  /** The event key, when it fits a routing key; otherwise empty (bindings use '#'). */
  public static String routingKey(Event event) {
    String key = event.key();
    if (key == null || key.getBytes(StandardCharsets.UTF_8).length > MAX_ROUTING_KEY_BYTES) {
      return "";
    }
    return key;
  }

  /**
   * The event a message carries, or null when it is not a Once event (no id in message-id nor in
   * the header).
   */
  public static Event event(String destination, AMQP.BasicProperties props, byte[] body) {
    Map<String, Object> raw = props.getHeaders() == null ? Map.of() : props.getHeaders();
    String id = props.getMessageId() != null ? props.getMessageId() : text(raw.get(EVENT_ID));
    if (id == null || props.getType() == null) {
      return null;
    }
    Map<String, String> headers = new HashMap<>();
    raw.forEach(
        (name, value) -> {
          if (!name.equals(EVENT_ID) && !name.equals(KEY) && !isBrokerHeader(name)) {
            headers.put(name, text(value));
          }
        });
    return new Event(
        new EventId(id), destination, text(raw.get(KEY)), props.getType(), body, headers);
  }

  /** Headers the broker adds on the way: delivery count and dead-lettering history. */
  private static boolean isBrokerHeader(String name) {
    return name.equals("x-delivery-count")
        || name.equals("x-death")
        || name.startsWith("x-first-death-")
        || name.startsWith("x-last-death-");
  }

  /** x-delivery-count counts earlier deliveries (absent on the first one). */
  public static int deliveryCount(AMQP.BasicProperties props, boolean redelivered) {
    Object count = props.getHeaders() == null ? null : props.getHeaders().get("x-delivery-count");
    if (count instanceof Number n) {
      return n.intValue() + 1;
    }
    return redelivered ? 2 : 1;
  }

  private static String text(Object value) {
    return value == null ? null : value.toString();
  }
}
