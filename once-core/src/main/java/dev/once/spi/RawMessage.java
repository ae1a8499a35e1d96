package dev.once.spi;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A message as a transport received it, before Once decoded it: what {@link MessageDecoder} reads.
 * Any field may be missing or wrong; that is the point. Build one with {@link Headers}, which keeps
 * a header that came more than once in {@link #repeated}: for Once's own headers ({@code once-*})
 * that makes the message malformed.
 *
 * @param destination the destination of the consumer that received it
 * @param messageId the broker's own message id property ({@code message-id} in AMQP), or null
 * @param type the broker's own type property, or null (then the header {@code once-type} is read)
 * @param headers the message's headers as the client library gives them, the last value of a
 *     repeated name: values may be {@link String}, {@code byte[]} (UTF-8 text), numbers, booleans,
 *     null or anything else
 * @param body the payload bytes, or null
 * @param repeated every header name that came more than once, with all its values in arrival order
 */
public record RawMessage(
    String destination,
    String messageId,
    String type,
    Map<String, ?> headers,
    byte[] body,
    Map<String, List<?>> repeated) {

  /** The header that carries the event id; it wins over {@link #messageId()}. */
  public static final String EVENT_ID = "once-event-id";

  /** The header that carries the ordering key. */
  public static final String KEY = "once-key";

  /** The header that carries the type, for brokers without a type property of their own. */
  public static final String TYPE = "once-type";

  /**
   * The prefix of Once's own headers ({@code once-event-id}, {@code once-type}, {@code once-key},
   * {@code once-content-type}, Kafka's {@code once-replay-for}); each may come at most once.
   */
  public static final String ONCE_PREFIX = "once-";

  public RawMessage {
    headers = headers == null ? Map.of() : headers;
    body = body == null ? new byte[0] : body;
    repeated = repeated == null ? Map.of() : repeated;
  }

  /** A message whose headers came as a map: no name twice. */
  public RawMessage(
      String destination, String messageId, String type, Map<String, ?> headers, byte[] body) {
    this(destination, messageId, type, headers, body, Map.of());
  }

  /**
   * A message's headers in the order they came, for brokers whose headers are a list (Kafka record
   * headers, a table row's flat array): a name that comes again is noted in {@link
   * RawMessage#repeated}, and the map keeps its last value.
   */
  public static final class Headers {
    private final Map<String, Object> last = new LinkedHashMap<>();

    /** Null until a name comes twice: most messages repeat none. */
    private Map<String, List<Object>> repeated;

    /** The next header as it came. */
    public Headers add(String name, Object value) {
      if (last.containsKey(name)) {
        if (repeated == null) {
          repeated = new LinkedHashMap<>();
        }
        repeated
            .computeIfAbsent(
                name,
                n -> {
                  List<Object> values = new ArrayList<>();
                  values.add(last.get(n));
                  return values;
                })
            .add(value);
      }
      last.put(name, value);
      return this;
    }

    /**
     * A Once header that the message carries in a field of its own (a Kafka record's key, a table
     * row's {@code event_id} or {@code event_key} column): a header of the same name besides a
     * non-null field is a second copy, noted as repeated, and the map takes the field's value; a
     * null field means none, and a header of that name is dropped.
     */
    public Headers field(String name, Object value) {
      if (value == null) {
        last.remove(name);
      } else {
        add(name, value);
      }
      return this;
    }

    /** Drops header {@code name} from the map (a repeat stays noted). */
    public Headers remove(String name) {
      last.remove(name);
      return this;
    }

    /** The message with these headers. */
    public RawMessage message(String destination, String messageId, String type, byte[] body) {
      if (repeated == null) {
        return new RawMessage(destination, messageId, type, last, body, Map.of());
      }
      Map<String, List<?>> r = new LinkedHashMap<>();
      repeated.forEach((name, values) -> r.put(name, Collections.unmodifiableList(values)));
      return new RawMessage(destination, messageId, type, last, body, r);
    }
  }
}
