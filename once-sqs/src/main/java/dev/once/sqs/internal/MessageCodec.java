package dev.once.sqs.internal;

import dev.once.Event;
import dev.once.InvalidEventException;
import dev.once.spi.Delivery;
import dev.once.spi.MessageDecoder;
import dev.once.spi.RawMessage;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Pattern;
import software.amazon.awssdk.services.sqs.model.Message;
import software.amazon.awssdk.services.sqs.model.MessageAttributeValue;
import software.amazon.awssdk.services.sqs.model.SendMessageBatchRequestEntry;

/**
 * An event as an SQS message: the payload as the body, the event id, type and key as the message
 * attributes {@code once-event-id}, {@code once-type}, {@code once-key}, every event header as a
 * String attribute of its own name. SQS bodies are text (XML characters, at least one): a payload
 * that is not such text (bytes, control characters, nothing) goes as base64 with the attribute
 * {@code once-body = base64}. On a FIFO queue the key is the {@code MessageGroupId} and the event
 * id the {@code MessageDeduplicationId} (each as it is when SQS takes it, otherwise its SHA-256).
 */
public final class MessageCodec {
  /** The attribute that says how the body carries the payload. */
  public static final String BODY = "once-body";

  /** SQS's limit of attributes per message. */
  static final int MAX_ATTRIBUTES = 10;

  private static final Pattern ATTRIBUTE_NAME = Pattern.compile("[A-Za-z0-9_.-]{1,256}");
  private static final Pattern FIFO_ID = Pattern.compile("[\\x21-\\x7E]{1,128}");

  private MessageCodec() {}

  /**
   * Refuses an event SQS could not carry, naming the field: too many headers, a header name SQS
   * refuses, an empty header value, or more than {@code maxBytes} as a message.
   */
  public static void check(Event e, int maxBytes) {
    attributes(e);
    int size = size(e);
    if (size > maxBytes) {
      throw new InvalidEventException(
          "payload",
          "makes an SQS message of "
              + size
              + " bytes (body and attributes), the limit is "
              + maxBytes
              + " (SqsTransport.builder().maxMessageBytes); put large payloads in a store and"
              + " send a reference");
    }
  }

  /** The message's size as SQS counts it: body plus each attribute's name, type and value. */
  static int size(Event e) {
    int size = body(e.payload()).getBytes(StandardCharsets.UTF_8).length;
    for (Map.Entry<String, MessageAttributeValue> a : attributes(e).entrySet()) {
      size += utf8(a.getKey()) + utf8("String") + utf8(a.getValue().stringValue());
    }
    return size;
  }

  /** The batch entry {@code entryId} carrying {@code e}. */
  static SendMessageBatchRequestEntry entry(String entryId, Event e, boolean fifo) {
    SendMessageBatchRequestEntry.Builder b =
        SendMessageBatchRequestEntry.builder()
            .id(entryId)
            .messageBody(body(e.payload()))
            .messageAttributes(attributes(e));
    if (fifo) {
      b.messageGroupId(fifoId(e.key() == null ? e.id().value() : e.key()))
          .messageDeduplicationId(fifoId(e.id().value()));
    }
    return b.build();
  }

  /** A deduplication id for a replay: never one the relay used. */
  static SendMessageBatchRequestEntry replayEntry(Event e, boolean fifo, long nonce) {
    SendMessageBatchRequestEntry entry = entry("0", e, fifo);
    return fifo
        ? entry.toBuilder().messageDeduplicationId(sha256("replay:" + nonce + ":" + e.id())).build()
        : entry;
  }

  private static Map<String, MessageAttributeValue> attributes(Event e) {
    Map<String, MessageAttributeValue> a = new LinkedHashMap<>();
    a.put(RawMessage.EVENT_ID, text(e.id().value()));
    a.put(RawMessage.TYPE, text(e.type()));
    if (e.key() != null) {
      a.put(RawMessage.KEY, text(e.key()));
    }
    if (!isText(e.payload())) {
      a.put(BODY, text("base64"));
    }
    for (Map.Entry<String, String> h : e.headers().entrySet()) {
      String name = h.getKey();
      if (a.containsKey(name) || name.equals(BODY)) {
        continue;
      }
      if (!ATTRIBUTE_NAME.matcher(name).matches()
          || name.startsWith(".")
          || name.endsWith(".")
          || name.contains("..")
          || name.toLowerCase().startsWith("aws.")
          || name.toLowerCase().startsWith("amazon.")) {
        throw new InvalidEventException(
            "headers",
            "name '"
                + name
                + "' is no SQS message attribute name (1 to 256 letters, digits, '_', '-', '.',"
                + " no '..', not starting with 'AWS.' or 'Amazon.')");
      }
      if (h.getValue().isEmpty()) {
        throw new InvalidEventException(
            "headers", "'" + name + "' is empty: SQS refuses an empty attribute value");
      }
      a.put(name, text(h.getValue()));
    }
    if (a.size() > MAX_ATTRIBUTES) {
      throw new InvalidEventException(
          "headers",
          "come to "
              + a.size()
              + " SQS message attributes with Once's own (id, type, key), SQS takes at most "
              + MAX_ATTRIBUTES);
    }
    return a;
  }

  /**
   * The delivery of {@code m}: every attribute as a header (text, or the bytes of a Binary one),
   * the body decoded as {@code once-body} says, read by the shared {@link MessageDecoder}. No
   * broker message id: SQS gives each send a new one, so it is no identity, and a message without
   * {@code once-event-id} is malformed. A body that is not what {@code once-body} says makes the
   * delivery malformed too: the consumer dead-letters it on its first delivery.
   */
  static Delivery decode(String destination, Message m, int count, SqsHandle handle) {
    RawMessage.Headers headers = new RawMessage.Headers();
    String encoding = null;
    for (Map.Entry<String, MessageAttributeValue> a : m.messageAttributes().entrySet()) {
      MessageAttributeValue v = a.getValue();
      Object value = v.stringValue() != null ? v.stringValue() : bytes(v);
      if (a.getKey().equals(BODY)) {
        encoding = String.valueOf(value);
      } else {
        headers.add(a.getKey(), value);
      }
    }
    String body = m.body() == null ? "" : m.body();
    byte[] payload = body.getBytes(StandardCharsets.UTF_8);
    String problem = null;
    if ("base64".equals(encoding)) {
      try {
        payload = Base64.getDecoder().decode(body);
      } catch (IllegalArgumentException notBase64) {
        problem = BODY + " says base64, the body is not base64";
      }
    } else if (encoding != null) {
      problem = BODY + " is not 'base64'";
    }
    Delivery d =
        MessageDecoder.decode(
            headers.message(destination, null, null, payload), count, count > 1, handle);
    return problem == null || d.isMalformed()
        ? d
        : new Delivery(d.event(), count, count > 1, handle, problem);
  }

  private static Object bytes(MessageAttributeValue v) {
    return v.binaryValue() == null ? null : v.binaryValue().asByteArray();
  }

  private static String body(byte[] payload) {
    return isText(payload)
        ? new String(payload, StandardCharsets.UTF_8)
        : Base64.getEncoder().encodeToString(payload);
  }

  /** Whether {@code payload} is UTF-8 of characters SQS allows in a body, and not empty. */
  static boolean isText(byte[] payload) {
    if (payload.length == 0) {
      return false;
    }
    String s;
    try {
      s =
          StandardCharsets.UTF_8
              .newDecoder()
              .onMalformedInput(CodingErrorAction.REPORT)
              .onUnmappableCharacter(CodingErrorAction.REPORT)
              .decode(ByteBuffer.wrap(payload))
              .toString();
    } catch (CharacterCodingException e) {
      return false;
    }
    return s.codePoints()
        .allMatch(
            c ->
                c == 0x9
                    || c == 0xA
                    || c == 0xD
                    || (c >= 0x20 && c <= 0xD7FF)
                    || (c >= 0xE000 && c <= 0xFFFD)
                    || c >= 0x10000);
  }

  /** A FIFO group or deduplication id: the text itself when SQS takes it, else its SHA-256. */
  static String fifoId(String text) {
    return FIFO_ID.matcher(text).matches() ? text : sha256(text);
  }

  private static String sha256(String text) {
    try {
      byte[] d = MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
      return HexFormat.of().formatHex(d);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  private static MessageAttributeValue text(String value) {
    return MessageAttributeValue.builder().dataType("String").stringValue(value).build();
  }

  private static int utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8).length;
  }
}
