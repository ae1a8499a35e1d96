package dev.once;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * {@link Redaction#shape}: keys and value types, never a value, on any input; {@link
 * Redaction#scrub} costs the size of its inputs once, whatever they hold.
 */
class RedactionShapeTest {

  @Test
  void theShapeShowsKeysAndTypesAndNoValue() {
    String json =
        "{\"sku\":\"A-4711\",\"qty\":3,\"ok\":true,\"note\":null,\"lines\":[{\"id\":123456},"
            + "{\"id\":2}],\"tags\":[\"x\"],\"meta\":{},\"none\":[]}";
    assertThat(Redaction.shape(bytes(json)))
        .isEqualTo(
            "{\"sku\":string,\"qty\":number,\"ok\":boolean,\"note\":null,"
                + "\"lines\":[{\"id\":number},…],\"tags\":[string],\"meta\":{},\"none\":[]}");
    assertThat(Redaction.describe(bytes("{\"card\":\"4111111111111111\"}")))
        .matches("27 bytes, sha256:[0-9a-f]{12}, \\{\"card\":string}");
  }

  @Test
  void textThatIsNotJsonOrStopsBeingJsonShowsNoValueEither() {
    assertThat(Redaction.shape(bytes("card=4111111111111111"))).isEqualTo("not JSON");
    assertThat(Redaction.shape(bytes("\"4111111111111111\""))).isEqualTo("not JSON");
    assertThat(Redaction.shape(bytes("{\"card\":\"4111111111"))).isEqualTo("{\"card\":…");
    assertThat(Redaction.shape(bytes("{\"card\":4111 x}"))).isEqualTo("{\"card\":number…");
    assertThat(Redaction.shape(bytes("[" + "[".repeat(10_000)))).isEqualTo("[[[[[[[…]…");
  }

  /** Random documents, their prefixes and random bytes: a property test with a fixed seed. */
  @Test
  void anyInputGivesABoundedShapeWithoutItsValues() {
    SplittableRandom random = new SplittableRandom(11);
    for (int n = 0; n < 3_000; n++) {
      List<String> values = new ArrayList<>();
      Object doc = random.nextBoolean() ? object(random, 0, values) : array(random, 0, values);
      String json = render(doc);
      String shape = Redaction.shape(bytes(json));
      assertThat(shape.length()).isLessThanOrEqualTo(300);
      for (String v : values) {
        assertThat(shape).as(json).doesNotContain(v);
      }
      String expected = expected(doc, 0);
      if (expected.length() <= 300) {
        assertThat(shape).as(json).isEqualTo(expected);
      }
      String prefix = json.substring(0, random.nextInt(json.length() + 1));
      assertThat(Redaction.shape(bytes(prefix)).length()).isLessThanOrEqualTo(300);
      byte[] noise = new byte[random.nextInt(64)];
      random.nextBytes(noise);
      assertThat(Redaction.shape(noise).length()).isLessThanOrEqualTo(300);
    }
  }

  @Test
  void scrubbingAHugeMessageOfAHugePayloadIsCutFirstAndStaysCheap() {
    StringBuilder payload = new StringBuilder("{\"items\":[");
    StringBuilder message = new StringBuilder("rejected: ");
    for (int i = 0; i < 50_000; i++) {
      String value = "secret-" + (1_000_000 + i);
      payload.append(i == 0 ? "" : ",").append("{\"v\":\"").append(value).append("\"}");
      message.append(value).append(' ');
    }
    byte[] body = bytes(payload.append("]}").toString()); // about 1.1 MB
    long start = System.nanoTime();
    String scrubbed = Redaction.scrub(message.toString(), body);
    long millis = (System.nanoTime() - start) / 1_000_000;
    assertThat(scrubbed).doesNotContain("secret-").endsWith("…");
    assertThat(scrubbed.length()).isLessThanOrEqualTo(Redaction.MAX_SCRUBBED_TEXT + 1);
    assertThat(millis).as("ms to scrub").isLessThan(3_000);
  }

  @Test
  void aValueTheCutSplitsIsMaskedToo() {
    String filler = "x".repeat(Redaction.MAX_SCRUBBED_TEXT - 6);
    String scrubbed =
        Redaction.scrub(
            filler + " 4111111111111111 tail", bytes("{\"card\":\"4111111111111111\"}"));
    assertThat(scrubbed).endsWith(" ***…").doesNotContain("41111");
  }

  private static Map<String, Object> object(SplittableRandom r, int depth, List<String> values) {
    Map<String, Object> m = new LinkedHashMap<>();
    int n = depth > 7 ? 0 : r.nextInt(4);
    for (int i = 0; i < n; i++) {
      m.put("k" + r.nextInt(100), value(r, depth + 1, values));
    }
    return m;
  }

  private static List<Object> array(SplittableRandom r, int depth, List<String> values) {
    List<Object> a = new ArrayList<>();
    int n = depth > 7 ? 0 : r.nextInt(4);
    for (int i = 0; i < n; i++) {
      a.add(value(r, depth + 1, values));
    }
    return a;
  }

  private static Object value(SplittableRandom r, int depth, List<String> values) {
    switch (r.nextInt(7)) {
      case 0:
        return object(r, depth, values);
      case 1:
        return array(r, depth, values);
      case 2:
        String s = "V\\\"al" + r.nextInt(1_000_000, 10_000_000);
        values.add(s);
        return s;
      case 3:
        long number = r.nextLong(1_000_000, 1_000_000_000);
        values.add(Long.toString(number));
        return number;
      case 4:
        return r.nextBoolean();
      case 5:
        return null;
      default:
        return -r.nextDouble();
    }
  }

  private static String render(Object v) {
    if (v instanceof Map<?, ?> m) {
      List<String> parts = new ArrayList<>();
      m.forEach((k, x) -> parts.add("\"" + k + "\" : " + render(x)));
      return "{ " + String.join(" , ", parts) + " }";
    }
    if (v instanceof List<?> a) {
      return "[" + String.join(",\n", a.stream().map(RedactionShapeTest::render).toList()) + "]";
    }
    return v instanceof String s ? "\"" + s + "\"" : String.valueOf(v);
  }

  /** The shape by the documented rules, from the model rather than the text. */
  private static String expected(Object v, int depth) {
    if (v instanceof Map<?, ?> m) {
      if (depth >= JsonShape.MAX_DEPTH) {
        return "{…}";
      }
      List<String> parts = new ArrayList<>();
      m.forEach((k, x) -> parts.add("\"" + k + "\":" + expected(x, depth + 1)));
      return "{" + String.join(",", parts) + "}";
    }
    if (v instanceof List<?> a) {
      if (depth >= JsonShape.MAX_DEPTH) {
        return "[…]";
      }
      if (a.isEmpty()) {
        return "[]";
      }
      return "[" + expected(a.get(0), depth + 1) + (a.size() > 1 ? ",…]" : "]");
    }
    if (v instanceof String) {
      return "string";
    }
    if (v instanceof Boolean) {
      return "boolean";
    }
    return v == null ? "null" : "number";
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
