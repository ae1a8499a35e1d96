package dev.once.rabbitmq.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.impl.AMQContentHeader;
import dev.once.Event;
import dev.once.EventId;
import dev.once.InvalidEventException;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Date;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** What the codec writes stays byte for byte what it wrote, and its length checks stay exact. */
class MessageCodecTest {
  private static final long NOW = 1_765_000_000_123L;
  private final MessageCodec codec = new MessageCodec("application/json");

  private static byte[] wire(AMQP.BasicProperties props) throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    ((AMQContentHeader) props).toFrame(1, 42).writeTo(new DataOutputStream(bytes));
    return bytes.toByteArray();
  }

  /** The content header frames of the three events below, recorded from the codec as released. */
  private static final List<String> WRITTEN =
      List.of(
          "AgABAAAAagA8AAAAAAAAAAAAKrDoEGFwcGxpY2F0aW9uL2pzb24AAAApDW9uY2UtZXZlbnQtaWRTAAAAB29yZGVyOjcIb25jZS1rZXlTAAAAATcCB29yZGVyOjcAAAAAaTPDQAdPcmRlcmVkBG9uY2XO",
          "AgABAAAAWwA8AAAAAAAAAAAAKrDoEGFwcGxpY2F0aW9uL2pzb24AAAAaDW9uY2UtZXZlbnQtaWRTAAAAB29yZGVyOjgCB29yZGVyOjgAAAAAaTPDQAdPcmRlcmVkBG9uY2XO",
          "AgABAAAAqgA8AAAAAAAAAAAAKrDoCnRleHQvcGxhaW4AAABvDW9uY2UtZXZlbnQtaWRTAAAAB29yZGVyOjkMY29udGVudC10eXBlUwAAAAp0ZXh0L3BsYWluBnRlbmFudFMAAAAEYWNtZQhvbmNlLWtleVMAAAAGY2zDqS05C3RyYWNlcGFyZW50UwAAAAQwMC14AgdvcmRlcjo5AAAAAGkzw0AHT3JkZXJlZARvbmNlzg==");

  @Test
  void thePropertiesOnTheWireAreByteForByteThoseOnceAlwaysWrote() throws IOException {
    List<Event> events =
        List.of(
            Event.of(EventId.of("order", 7), "orders", "7", "Ordered", "{\"orderId\":7}"),
            Event.of(EventId.of("order", 8), "orders", null, "Ordered", "{}"),
            new Event(
                new EventId("order:9"),
                "orders",
                "clé-9",
                "Ordered",
                "{}".getBytes(StandardCharsets.UTF_8),
                Map.of("tenant", "acme", "content-type", "text/plain", "traceparent", "00-x")));
    for (int i = 0; i < events.size(); i++) {
      assertThat(
              Base64.getEncoder()
                  .encodeToString(wire(codec.properties(events.get(i), new Date(NOW)))))
          .as(events.get(i).id().value())
          .isEqualTo(WRITTEN.get(i));
    }
  }

  @Test
  void theUtf8LengthIsWhatEncodingGivesForEveryKindOfCharacter() {
    List<String> units = List.of("a", "é", "€", "\uD83D\uDE00", "\uD83D", "\uDE00", "\uDE00\uD83D");
    for (String unit : units) {
      for (int n = 86; n <= 300; n += 13) {
        String s = unit.repeat(n / unit.length() + 1);
        for (String t : List.of(s, s + "\uD83D", "x" + s)) {
          int expected = t.getBytes(StandardCharsets.UTF_8).length;
          assertThat(MessageCodec.utf8Length(t, 255)).as(t).isEqualTo(expected);
        }
      }
    }
  }

  @Test
  void aShortStringIsWithinTheLimitWithoutCounting() {
    String shortest = "\uD83D\uDE00".repeat(42); // 84 chars, 168 bytes
    assertThat(MessageCodec.utf8Length(shortest, 255)).isLessThanOrEqualTo(255);
    assertThat(MessageCodec.utf8Length("€".repeat(85), 255)).isLessThanOrEqualTo(255);
  }

  @Test
  void aTypeOf256BytesIsRefusedAndOneOf255Passes() {
    Event fits = Event.of(EventId.of("o", 1), "orders", "1", "€".repeat(85), "{}");
    codec.checkPublishable(fits);
    Event over = Event.of(EventId.of("o", 1), "orders", "1", "€".repeat(85) + "a", "{}");
    assertThatThrownBy(() -> codec.checkPublishable(over))
        .isInstanceOf(InvalidEventException.class)
        .hasMessageContaining("event.type")
        .hasMessageContaining("256 bytes");
  }

  @Test
  void aKeyOver255BytesIsNoRoutingKey() {
    String fits = "é".repeat(127) + "a"; // 255 bytes
    assertThat(MessageCodec.routingKey(Event.of(EventId.of("o", 1), "d", fits, "T", "{}")))
        .isEqualTo(fits);
    String over = "é".repeat(128); // 256 bytes
    assertThat(MessageCodec.routingKey(Event.of(EventId.of("o", 1), "d", over, "T", "{}")))
        .isEmpty();
  }
}
