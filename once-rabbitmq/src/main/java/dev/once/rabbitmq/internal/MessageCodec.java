package dev.once.rabbitmq.internal;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.LongString;
import dev.once.Event;
import dev.once.InvalidEventException;
import dev.once.spi.RawMessage;
import java.util.AbstractMap;
import java.util.AbstractSet;
import java.util.Date;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Event ↔ AMQP message. The event id goes in {@code message-id} and in the header {@code
 * once-event-id}; the type in {@code type}; the key in the header {@code once-key} (and as routing
 * key when it fits); the event's own headers as AMQP headers. Messages are persistent. Decoding is
 * {@link dev.once.spi.MessageDecoder}'s, shared by every transport.
 */
public final class MessageCodec {
  static final String EVENT_ID = RawMessage.EVENT_ID;
  static final String KEY = RawMessage.KEY;
  static final String CONTENT_TYPE = "content-type";
  private static final int MAX_ROUTING_KEY_BYTES = 255;
  private static final int MAX_SHORT_STRING_BYTES = 255;

  private final String defaultContentType;

  public MessageCodec(String defaultContentType) {
    this.defaultContentType = defaultContentType;
  }

  /**
   * The message's properties; {@code now} is shared by a batch's messages (the client only reads
   * it).
   */
  public AMQP.BasicProperties properties(Event event, Date now) {
    return new OutgoingProperties(
        contentType(event), headers(event), event.id().value(), now, event.type(), "once");
  }

  /**
   * The event's headers with the id and the key. Without headers of its own (the common case) an
   * immutable map of one or two entries: the client only reads it ({@link OutgoingProperties} holds
   * it as it is), and a relay builds one per message.
   */
  private static Map<String, Object> headers(Event event) {
    String id = event.id().value();
    String key = event.key();
    if (event.headers().isEmpty()) {
      return key == null ? Map.of(EVENT_ID, id) : new IdAndKey(id, key);
    }
    Map<String, Object> headers = new HashMap<>(event.headers());
    headers.put(EVENT_ID, id);
    if (key != null) {
      headers.put(KEY, key);
    }
    // copied once more, as the client's BasicProperties copied it: a table's entries go on the
    // wire in its map's order, which depends on the map's capacity
    return new HashMap<>(headers);
  }

  /**
   * Once's two headers in the order the client's hash map of them always wrote them to the table on
   * the wire, the id then the key ({@code Map.of}'s order changes from one JVM to the next).
   */
  private static final class IdAndKey extends AbstractMap<String, Object> {
    private final Set<Map.Entry<String, Object>> entries;

    IdAndKey(String id, String key) {
      List<Map.Entry<String, Object>> both = List.of(Map.entry(EVENT_ID, id), Map.entry(KEY, key));
      entries =
          new AbstractSet<>() {
            @Override
            public Iterator<Map.Entry<String, Object>> iterator() {
              return both.iterator();
            }

            @Override
            public int size() {
              return 2;
            }
          };
    }

    @Override
    public Set<Map.Entry<String, Object>> entrySet() {
      return entries;
    }
  }

  /**
   * Refuses an event whose fields do not fit AMQP: the id (message-id), the type and every header
   * name are short strings of at most 255 <b>bytes</b> in UTF-8, and so is the content type.
   */
  public void checkPublishable(Event event) {
    shortString("event.id", event.id().value());
    shortString("event.type", event.type());
    for (Map.Entry<String, String> h : event.headers().entrySet()) {
      shortString("event.headers name", h.getKey());
    }
    shortString("event.headers " + CONTENT_TYPE, contentType(event));
  }

  private String contentType(Event event) {
    return event.headers().getOrDefault(CONTENT_TYPE, defaultContentType);
  }

  private static void shortString(String field, String value) {
    int bytes = utf8Length(value, MAX_SHORT_STRING_BYTES);
    if (bytes > MAX_SHORT_STRING_BYTES) {
      throw new InvalidEventException(
          field,
          "is "
              + bytes
              + " bytes in UTF-8; RabbitMQ carries it in a short string of at most "
              + MAX_SHORT_STRING_BYTES
              + " bytes");
    }
  }

  /** The event key, when it fits a routing key; otherwise empty (bindings use '#'). */
  public static String routingKey(Event event) {
    String key = event.key();
    if (key == null || utf8Length(key, MAX_ROUTING_KEY_BYTES) > MAX_ROUTING_KEY_BYTES) {
      return "";
    }
    return key;
  }

  /**
   * The length of {@code value} in UTF-8, as {@code value.getBytes(UTF_8).length} gives it (an
   * unpaired surrogate is one byte, the '?' it becomes), without encoding it: this runs for every
   * field of every event published and relayed. A string of at most {@code limit / 3} characters
   * cannot exceed {@code limit} bytes (3 bytes a char at most; a pair of surrogates is 4 bytes for
   * 2 chars) and is not counted: its result is then only known to be at most {@code limit}.
   */
  static int utf8Length(String value, int limit) {
    int chars = value.length();
    if (chars <= limit / 3) {
      return chars;
    }
    int bytes = 0;
    for (int i = 0; i < chars; i++) {
      char c = value.charAt(i);
      if (c < 0x80) {
        bytes += 1;
      } else if (c < 0x800) {
        bytes += 2;
      } else if (Character.isHighSurrogate(c)
          && i + 1 < chars
          && Character.isLowSurrogate(value.charAt(i + 1))) {
        bytes += 4;
        i++;
      } else if (Character.isSurrogate(c)) {
        bytes += 1;
      } else {
        bytes += 3;
      }
    }
    return bytes;
  }

  /**
   * The message as {@link MessageDecoder} reads it: AMQP long strings become their bytes (decoded
   * there as strict UTF-8), every other value is passed as the client gives it.
   */
  public static RawMessage raw(String destination, AMQP.BasicProperties props, byte[] body) {
    Map<String, Object> headers = new HashMap<>();
    if (props.getHeaders() != null) {
      props
          .getHeaders()
          .forEach(
              (name, value) ->
                  headers.put(name, value instanceof LongString s ? s.getBytes() : value));
    }
    return new RawMessage(destination, props.getMessageId(), props.getType(), headers, body);
  }

  /** x-delivery-count counts earlier deliveries (absent on the first one). */
  public static int deliveryCount(AMQP.BasicProperties props, boolean redelivered) {
    Object count = props.getHeaders() == null ? null : props.getHeaders().get("x-delivery-count");
    if (count instanceof Number n) {
      return n.intValue() + 1;
    }
    return redelivered ? 2 : 1;
  }
}
