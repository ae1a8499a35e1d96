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
    assertThat(decode(null, "T", Map.of(), null).malformed()).isEqualTo("once-event-id missing");
    assertThat(decode("", "T", Map.of(), null).malformed()).isEqualTo("message-id is empty");
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

  /** A message whose headers came as a list, in this order: name, value, name, value… */
  private static RawMessage listed(byte[] body, Object... nameValue) {
    RawMessage.Headers h = new RawMessage.Headers();
    for (int i = 0; i < nameValue.length; i += 2) {
      h.add((String) nameValue[i], nameValue[i + 1]);
    }
    return h.message("orders", null, null, body);
  }

  private static Delivery decode(RawMessage raw) {
    return MessageDecoder.decode(raw, 1, false, 7L);
  }

  @Test
  void aOnceHeaderThatComesTwiceMakesTheMessageMalformedWhetherTheValuesAgreeOrNot() {
    for (String name : List.of("once-event-id", "once-type", "once-key", "once-content-type")) {
      Object[] base = {
        "once-event-id", "a:1", "once-type", "T", "once-key", "k", "once-content-type", "a/b"
      };
      Object[] twice = java.util.Arrays.copyOf(base, base.length + 2);
      twice[base.length] = name;
      twice[base.length + 1] = name.equals("once-event-id") ? "a:2" : "other";
      assertThat(decode(listed(null, twice)).malformed())
          .as(name)
          .isEqualTo("header '" + name + "' appears 2 times (Once's headers may appear once)");
    }
    Delivery same = decode(listed(null, "once-event-id", "a:1", "once-event-id", "a:1"));
    assertThat(same.malformed()).startsWith("header 'once-event-id' appears 2 times");
    assertThat(
            decode(
                    listed(
                        null,
                        "once-replay-for",
                        "g",
                        "once-event-id",
                        "a:1",
                        "once-type",
                        "T",
                        "once-replay-for",
                        "h",
                        "once-replay-for",
                        "i"))
                .malformed())
        .isEqualTo("header 'once-replay-for' appears 3 times (Once's headers may appear once)");
  }

  @Test
  void anyOtherHeaderThatComesTwiceKeepsItsLastValue() {
    Delivery d = decode(listed(null, "once-event-id", "a:1", "once-type", "T", "t", "1", "t", "2"));
    assertThat(d.isMalformed()).isFalse();
    assertThat(d.event().headers()).containsOnly(Map.entry("t", "2"));
  }

  @Test
  void aFieldOfItsOwnBesideAHeaderOfTheSameNameIsARepeatAndANullFieldDropsTheHeader() {
    RawMessage keyed =
        new RawMessage.Headers()
            .add("once-event-id", "a:1")
            .add("once-type", "T")
            .add("once-key", "from-header")
            .field("once-key", "from-record")
            .message("orders", null, null, null);
    assertThat(decode(keyed).malformed()).startsWith("header 'once-key' appears 2 times");
    RawMessage unkeyed =
        new RawMessage.Headers()
            .add("once-event-id", "a:1")
            .add("once-type", "T")
            .add("once-key", "from-header")
            .field("once-key", null)
            .message("orders", null, null, null);
    assertThat(decode(unkeyed).event().key()).isNull();
    RawMessage field =
        new RawMessage.Headers()
            .add("once-event-id", "a:1")
            .add("once-type", "T")
            .field("once-key", "k")
            .message("orders", null, null, null);
    assertThat(decode(field).event().key()).isEqualTo("k");
  }

  @Test
  void twoMessagesThatDifferOnlyInTheFirstValueOfARepeatedHeaderGetTwoStandInIds() {
    Delivery a = decode(listed(null, "once-event-id", "a:1", "once-event-id", "z:9"));
    Delivery b = decode(listed(null, "once-event-id", "b:1", "once-event-id", "z:9"));
    Delivery again = decode(listed(null, "once-event-id", "a:1", "once-event-id", "z:9"));
    assertThat(a.event().id()).isNotEqualTo(b.event().id()).isEqualTo(again.event().id());
    assertThat(a.event().headers().get("raw.header.once-event-id"))
        .startsWith("2 values: ")
        .doesNotContain("a:1", "z:9");
  }

  @Test
  void aMessageWithoutRepeatsKeepsTheStandInIdItHadBeforeRepeatsWereRecorded() {
    Map<String, Object> headers = new HashMap<>();
    headers.put("once-event-id", "a\u0001");
    headers.put("tenant", "acme");
    RawMessage asMap = new RawMessage("orders", null, "T", headers, "x".getBytes());
    RawMessage asList =
        new RawMessage.Headers()
            .add("tenant", "acme")
            .add("once-event-id", "a\u0001")
            .message("orders", null, "T", "x".getBytes());
    assertThat(decode(asList).event().id()).isEqualTo(decode(asMap).event().id());
  }
}
