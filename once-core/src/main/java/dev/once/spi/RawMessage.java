package dev.once.spi;

import java.util.Map;

/**
 * A message as a transport received it, before Once decoded it: what {@link MessageDecoder} reads.
 * Any field may be missing or wrong; that is the point.
 *
 * @param destination the destination of the consumer that received it
 * @param messageId the broker's own message id property ({@code message-id} in AMQP), or null
 * @param type the broker's own type property, or null (then the header {@code once-type} is read)
 * @param headers the message's headers as the client library gives them: values may be {@link
 *     String}, {@code byte[]} (UTF-8 text), numbers, booleans, null or anything else
 * @param body the payload bytes, or null
 */
public record RawMessage(
    String destination, String messageId, String type, Map<String, ?> headers, byte[] body) {

  /** The header that carries the event id; it wins over {@link #messageId()}. */
  public static final String EVENT_ID = "once-event-id";

  /** The header that carries the ordering key. */
  public static final String KEY = "once-key";

  /** The header that carries the type, for brokers without a type property of their own. */
  public static final String TYPE = "once-type";

  public RawMessage {
    headers = headers == null ? Map.of() : headers;
    body = body == null ? new byte[0] : body;
  }
}
