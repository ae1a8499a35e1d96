package dev.once.spi;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The decode rule every transport shares: what wins, what is malformed, never an exception. */
class MessageDecoderTest {

  private static Delivery decode(String messageId, String type, Map<String, ?> headers, byte[] b) {
    return MessageDecoder.decode(
        new RawMessage("orders", messageId, type, headers, b), 1, false, 7L);
  }

  @Test
  void theOnceEventIdHeaderWinsOverTheMessageId() {
    Delivery d =
        decode("broker-id-1", "OrderPaid", Map.of("once-event-id", "order-paid:1"), new byte[0]);
    assertThat(d.isMalformed()).isFalse();
    assertThat(d.event().id().value()).isEqualTo("order-paid:1");
  }

  @Test
  void aForeignMessageIsReadFromItsOwnPropertiesAndKeepsItsHeadersAsText() {
    Delivery d =
        decode(
            "foreign-1",
            "Invoice",
            Map.of(
                "tenant",
                "acme".getBytes(StandardCharsets.UTF_8),
                "retries",
                3,
                "x-delivery-count",
                2),
            "<xml/>".getBytes(StandardCharsets.UTF_8));
    assertThat(d.isMalformed()).isFalse();
    assertThat(d.event().id().value()).isEqualTo("foreign-1");
    assertThat(d.event().type()).isEqualTo("Invoice");
    assertThat(d.event().key()).isNull();
    assertThat(d.event().headers())
        .containsOnly(Map.entry("tenant", "acme"), Map.entry("retries", "3"));
  }

  @Test
  void badInputBecomesAMalformedDeliveryNamingTheFieldNeverItsValue() {
    Map<String, Object> nullHeader = new HashMap<>();
    nullHeader.put("tenant", null);
    assertThat(decode("a:1", "T", nullHeader, null).malformed())
        .isEqualTo("header 'tenant' is null");
    assertThat(decode(null, "T", Map.of(), null).malformed()).isEqualTo("message-id missing");
    assertThat(decode("a:1", null, Map.of(), null).malformed()).isEqualTo("once-type missing");
    assertThat(decode("a:1", "T", Map.of("once-event-id", "secret\u0001"), null).malformed())
        .isEqualTo("once-event-id has a control character at index 6");
    assertThat(decode("a:1", "T", Map.of("h", new byte[] {(byte) 0xff}), null).malformed())
        .isEqualTo("header 'h' is bytes that are not UTF-8, not text");
    assertThat(decode("a:1", "T", Map.of("h", List.of(1)), null).malformed())
        .isEqualTo("header 'h' is a list, not text");
    assertThat(decode("a:1", "T", Map.of("h", "a\0b"), null).malformed())
        .isEqualTo("header 'h' has a NUL character");
    assertThat(decode(" a:1", "T", Map.of(), null).malformed())
        .isEqualTo("message-id starts or ends with white space");
  }

  @Test
  void theSameMalformedMessageAlwaysGetsTheSameStandInIdAndNoValueOfIt() {
    Map<String, Object> h = new HashMap<>();
    h.put("card", "4111111111111111");
    h.put("bad", null);
    Delivery one = decode(null, "T", h, "{\"pin\":\"1234\"}".getBytes(StandardCharsets.UTF_8));
    Delivery two = decode(null, "T", h, "{\"pin\":\"1234\"}".getBytes(StandardCharsets.UTF_8));
    assertThat(one.event().id()).isEqualTo(two.event().id());
    assertThat(one.event().id().value()).startsWith("malformed:");
    assertThat(one.event().type()).isEqualTo(MessageDecoder.MALFORMED_TYPE);
    assertThat(one.event().headers().get("raw.body")).startsWith("14 bytes, sha256:");
    assertThat(one.handle()).isEqualTo(7L);
    assertThat(one.event().headers().toString()).doesNotContain("4111").doesNotContain("1234");
    assertThat(one.event().headers().get("raw.header.bad")).isEqualTo("(null)");
  }

  @Test
  void aRedeliveryOfAMalformedMessageGetsTheSameStandInIdThoughTheBrokerAddedHeaders() {
    Map<String, Object> first = new HashMap<>();
    first.put("bad", null);
    Map<String, Object> again = new HashMap<>(first);
    again.put("x-delivery-count", 3L); // a quorum queue counts the returns
    again.put("x-death", List.of(Map.of("reason", "rejected", "count", 1L)));
    again.put("x-first-death-reason", "rejected");
    byte[] body = "{}".getBytes(StandardCharsets.UTF_8);
    assertThat(decode(null, "T", again, body).event().id())
        .isEqualTo(decode(null, "T", first, body).event().id());
  }
}
