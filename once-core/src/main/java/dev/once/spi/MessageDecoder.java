package dev.once.spi;

import dev.once.Event;
import dev.once.EventId;
import dev.once.Redaction;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Turns what a transport received into a {@link Delivery}, for every transport alike; never throws.
 * A transport calls {@link #decode} on its client's delivery thread (or wherever it reads messages)
 * and hands the result to the consumer as it is: a well-formed event, or a malformed delivery that
 * the consumer dead-letters on its first delivery and then acknowledges.
 *
 * <p>The rule, for Once's own messages and foreign ones alike:
 *
 * <ul>
 *   <li><b>Once's headers</b> ({@code once-event-id}, {@code once-type}, {@code once-key}, {@code
 *       once-content-type}, every {@code once-*}) come at most once: a repeated one makes the
 *       message malformed, since its id, type or key would be ambiguous (which one is the event?).
 *       Other repeated headers keep their last value.
 *   <li><b>id</b>: the header {@code once-event-id} when present (even if it is wrong), otherwise
 *       the broker's message id; 1–200 characters, valid UTF-8, no control characters, no white
 *       space at either end. With neither: {@code once-event-id missing}.
 *   <li><b>type</b>: the broker's type property, otherwise the header {@code once-type}; same
 *       rules.
 *   <li><b>key</b>: the header {@code once-key}, optional; same rules.
 *   <li><b>headers</b>: every other header except the broker's own ({@code x-delivery-count},
 *       {@code x-death}, {@code x-first-death-*}, {@code x-last-death-*}, {@code x-opt-*}). Text
 *       values are kept; numbers and booleans become their text; a null, a table, a list, bytes
 *       that are not UTF-8, or a NUL character make the message malformed.
 *   <li><b>body</b>: at most {@link Event#MAX_PAYLOAD_BYTES} bytes, kept as they are (JSON or not).
 * </ul>
 *
 * A malformed message becomes a stand-in event: id {@code malformed:<sha-256 of the message>}, the
 * broker's own headers left out (the same message gives the same id on every delivery, so a
 * redelivery finds its dead letter and adds none; every value of a repeated header counts), type
 * {@value #MALFORMED_TYPE}, no key, the body when it is within the limit, and its raw properties as
 * headers named {@code raw.*}: the message id and type cut to {@value #SHOWN} characters with
 * control characters escaped, every other header value and the body only as size and hash.
 */
public final class MessageDecoder {
  /** The type of the stand-in event of a malformed delivery. */
  public static final String MALFORMED_TYPE = "once.MalformedMessage";

  static final int SHOWN = 64;

  private MessageDecoder() {}

  /** Decodes {@code raw}; never throws. */
  public static Delivery decode(
      RawMessage raw, int deliveryCount, boolean redelivered, Object handle) {
    String problem;
    try {
      Decoded d = new Decoded(raw);
      problem = d.problem;
      if (problem == null) {
        return new Delivery(d.event(), deliveryCount, redelivered, handle);
      }
    } catch (RuntimeException e) {
      problem = "could not be decoded (" + e.getClass().getSimpleName() + ")";
    }
    return new Delivery(standIn(raw), deliveryCount, redelivered, handle, problem);
  }

  /** Reads the fields, noting the first problem. */
  private static final class Decoded {
    private final RawMessage raw;
    private String problem;
    private String id;
    private String type;
    private String key;

    /** Null until the first header besides Once's own: a table row often has none. */
    private Map<String, String> headers;

    Decoded(RawMessage raw) {
      this.raw = raw;
      read();
    }

    private void read() {
      Map<String, ?> h = raw.headers();
      if (raw.body().length > Event.MAX_PAYLOAD_BYTES) {
        problem =
            "body is " + raw.body().length + " bytes, the limit is " + Event.MAX_PAYLOAD_BYTES;
        return;
      }
      problem = repeatedOnceHeader(raw);
      if (problem != null) {
        return;
      }
      if (h.containsKey(RawMessage.EVENT_ID)) {
        id = field(RawMessage.EVENT_ID, h.get(RawMessage.EVENT_ID), true);
      } else if (raw.messageId() == null) {
        problem = RawMessage.EVENT_ID + " missing"; // the header; Kafka and tables have no other
      } else {
        id = field("message-id", raw.messageId(), true);
      }
      if (problem != null) {
        return;
      }
      type =
          raw.type() != null
              ? field("type", raw.type(), true)
              : field(RawMessage.TYPE, h.get(RawMessage.TYPE), true);
      if (problem != null) {
        return;
      }
      key = field(RawMessage.KEY, h.get(RawMessage.KEY), false);
      if (problem != null) {
        return;
      }
      for (Map.Entry<String, ?> e : h.entrySet()) {
        if (!skipped(e.getKey()) && !header(e.getKey(), e.getValue())) {
          return;
        }
      }
    }

    /**
     * The first of Once's own headers ({@code once-*}) that came more than once, as a problem: the
     * event id, type, key or content type would be ambiguous, and the inbox deduplicates on the id.
     */
    private static String repeatedOnceHeader(RawMessage raw) {
      for (Map.Entry<String, List<?>> r : raw.repeated().entrySet()) {
        if (r.getKey() != null && r.getKey().startsWith(RawMessage.ONCE_PREFIX)) {
          return "header '"
              + shown(r.getKey())
              + "' appears "
              + r.getValue().size()
              + " times (Once's headers may appear once)";
        }
      }
      return null;
    }

    private static boolean skipped(String name) {
      return name == null
          || name.equals(RawMessage.EVENT_ID)
          || name.equals(RawMessage.KEY)
          || name.equals(RawMessage.TYPE)
          || isBrokerHeader(name);
    }

    /** An id, type or key: text within the limits, or the problem noted. */
    private String field(String name, Object value, boolean required) {
      if (value == null) {
        if (required) {
          problem = name + " missing";
        }
        return null;
      }
      String text = text(value);
      if (text == null) {
        problem = name + " is " + kind(value) + ", not text";
        return null;
      }
      String bad = invalid(text);
      if (bad != null) {
        problem = name + " " + bad;
        return null;
      }
      return text;
    }

    private boolean header(String name, Object value) {
      if (name.isEmpty() || name.indexOf('\0') >= 0) {
        problem = "a header name is empty or has a NUL character";
        return false;
      }
      if (value == null) {
        problem = "header '" + shown(name) + "' is null";
        return false;
      }
      String text = text(value);
      if (text == null) {
        problem = "header '" + shown(name) + "' is " + kind(value) + ", not text";
        return false;
      }
      if (text.indexOf('\0') >= 0) {
        problem = "header '" + shown(name) + "' has a NUL character";
        return false;
      }
      if (headers == null) {
        headers = new HashMap<>();
      }
      headers.put(name, text);
      return true;
    }

    Event event() {
      return new Event(
          new EventId(id),
          raw.destination(),
          key,
          type,
          raw.body(),
          headers == null ? Map.of() : Map.copyOf(headers));
    }
  }

  /** Why {@code text} is no id, type or key, or null if it is fine. Names no value. */
  static String invalid(String text) {
    if (text.isEmpty()) {
      return "is empty";
    }
    if (text.length() > EventId.MAX_LENGTH) {
      return "is " + text.length() + " characters long, the limit is " + EventId.MAX_LENGTH;
    }
    if (text.indexOf('\uFFFD') >= 0) {
      return "is not valid UTF-8";
    }
    for (int i = 0; i < text.length(); i++) {
      if (Character.isISOControl(text.charAt(i))) {
        return "has a control character at index " + i;
      }
    }
    if (!text.strip().equals(text)) {
      return "starts or ends with white space";
    }
    return null;
  }

  /** Headers the broker adds on the way: delivery count and dead-lettering history. */
  public static boolean isBrokerHeader(String name) {
    return name.equals("x-delivery-count")
        || name.equals("x-death")
        || name.startsWith("x-first-death-")
        || name.startsWith("x-last-death-")
        || name.startsWith("x-opt-");
  }

  /** Text of a header value, or null when it is not text (or bytes that are not UTF-8). */
  private static String text(Object value) {
    if (value instanceof String s) {
      return s;
    }
    if (value instanceof byte[] bytes) {
      if (ascii(bytes)) { // valid UTF-8 as it is: one string, no decoder and no buffers
        return new String(bytes, StandardCharsets.ISO_8859_1);
      }
      try {
        return StandardCharsets.UTF_8
            .newDecoder()
            .onMalformedInput(CodingErrorAction.REPORT)
            .onUnmappableCharacter(CodingErrorAction.REPORT)
            .decode(ByteBuffer.wrap(bytes))
            .toString();
      } catch (CharacterCodingException e) {
        return null;
      }
    }
    if (value instanceof Number || value instanceof Boolean) {
      return value.toString();
    }
    return null;
  }

  /** Whether every byte is below 0x80: then the bytes are their own UTF-8 text. */
  private static boolean ascii(byte[] bytes) {
    for (byte b : bytes) {
      if (b < 0) {
        return false;
      }
    }
    return true;
  }

  private static String kind(Object value) {
    if (value instanceof byte[]) {
      return "bytes that are not UTF-8";
    }
    if (value instanceof Map) {
      return "a table";
    }
    if (value instanceof Iterable || value.getClass().isArray()) {
      return "a list";
    }
    return "a " + value.getClass().getSimpleName();
  }

  /** The stand-in event of a malformed message. */
  static Event standIn(RawMessage raw) {
    Map<String, String> shown = new TreeMap<>();
    StringBuilder identity = new StringBuilder();
    identity.append(described(raw.messageId())).append('\n').append(described(raw.type()));
    shown.put("raw.message-id", shown(raw.messageId()));
    shown.put("raw.type", shown(raw.type()));
    shown.put("raw.body", Redaction.summary(raw.body()));
    Map<String, Object> sorted = new TreeMap<>();
    raw.headers().forEach((n, v) -> sorted.put(n == null ? "(null)" : n, v));
    sorted.forEach(
        (name, value) -> {
          // the broker's own headers change from one delivery of the message to the next
          // (x-delivery-count): they are not part of its identity
          if (!isBrokerHeader(name)) {
            List<?> all = raw.repeated().get(name);
            identity.append('\n').append(name).append('=');
            identity.append(all == null ? described(value) : describedAll(all));
            shown.put("raw.header." + shown(name), all == null ? summary(value) : summaryAll(all));
          }
        });
    identity.append('\n').append(Redaction.sha256(raw.body()));
    String hash = Redaction.sha256(identity.toString().getBytes(StandardCharsets.UTF_8));
    byte[] body = raw.body().length > Event.MAX_PAYLOAD_BYTES ? new byte[0] : raw.body();
    String destination = raw.destination();
    if (destination == null || invalid(destination) != null) {
      shown.put("raw.destination", shown(destination));
      destination = "invalid-destination";
    }
    return new Event(
        new EventId("malformed:" + hash.substring(0, 40)),
        destination,
        null,
        MALFORMED_TYPE,
        body,
        shown);
  }

  /** Every value of a repeated header, for the stand-in's id: two messages differ by any one. */
  private static String describedAll(List<?> values) {
    StringBuilder out = new StringBuilder("repeated:" + values.size());
    for (Object v : values) {
      out.append('\n').append(described(v));
    }
    return out.toString();
  }

  /** Every value of a repeated header for a person, as {@link #summary} shows one. */
  private static String summaryAll(List<?> values) {
    StringBuilder out = new StringBuilder(values.size() + " values:");
    for (Object v : values) {
      out.append(' ').append(summary(v)).append(';');
    }
    return out.substring(0, out.length() - 1);
  }

  /** A header value for a person: its kind, or its size and hash, never its content. */
  private static String summary(Object value) {
    if (value == null) {
      return "(null)";
    }
    if (value instanceof byte[] bytes) {
      return Redaction.summary(bytes);
    }
    if (value instanceof String || value instanceof Number || value instanceof Boolean) {
      return Redaction.summary(value.toString().getBytes(StandardCharsets.UTF_8));
    }
    return "(" + kind(value) + ")";
  }

  /** A stable description of a raw value, for the stand-in's id. */
  private static String described(Object value) {
    if (value instanceof byte[] bytes) {
      return "bytes:" + Redaction.sha256(bytes);
    }
    return value == null ? "(null)" : value.getClass().getSimpleName() + ":" + value;
  }

  /** A raw value for a person: cut, control characters escaped, never null, never a NUL. */
  static String shown(Object value) {
    if (value == null) {
      return "(null)";
    }
    String text;
    if (value instanceof byte[] bytes) {
      text = new String(bytes, StandardCharsets.UTF_8);
    } else if (value instanceof String || value instanceof Number || value instanceof Boolean) {
      text = value.toString();
    } else {
      return "(" + kind(value) + ")";
    }
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < text.length() && out.length() < SHOWN; i++) {
      char ch = text.charAt(i);
      if (Character.isISOControl(ch)) {
        out.append(String.format("\\u%04x", (int) ch));
      } else {
        out.append(ch);
      }
    }
    if (text.length() > SHOWN) {
      out.append("… (").append(text.length()).append(" characters)");
    }
    return out.toString();
  }
}
