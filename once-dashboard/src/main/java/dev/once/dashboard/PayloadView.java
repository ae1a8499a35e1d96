package dev.once.dashboard;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.once.Redaction;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A payload as the page shows it: by default size, SHA-256 and shape (JSON keys with the type of
 * each value, never a value); the content only when the operator reveals it on purpose.
 */
final class PayloadView {
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
  private static final int MAX_DEPTH = 8;
  private static final int MAX_FIELDS = 100;

  private PayloadView() {}

  static Map<String, Object> redacted(byte[] payload) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("size", payload.length);
    m.put("sha256", Redaction.sha256(payload));
    m.put("summary", Redaction.summary(payload));
    m.put("shape", shape(payload));
    return m;
  }

  /** The content: text when it is UTF-8, base64 otherwise. */
  static Map<String, Object> revealed(byte[] payload) {
    Map<String, Object> m = new LinkedHashMap<>();
    try {
      String text = StandardCharsets.UTF_8.newDecoder().decode(ByteBuffer.wrap(payload)).toString();
      m.put("encoding", "utf-8");
      m.put("text", text);
    } catch (CharacterCodingException e) {
      m.put("encoding", "base64");
      m.put("text", Base64.getEncoder().encodeToString(payload));
    }
    return m;
  }

  /** {@code {"order":"string","amount":"number","lines":[{"sku":"string"}]}}, or a word. */
  static Object shape(byte[] payload) {
    String text = new String(payload, StandardCharsets.UTF_8).strip();
    if (text.startsWith("{") || text.startsWith("[")) {
      try {
        return shape(Json.MAPPER.readTree(text), 0);
      } catch (IOException e) {
        return "text (not valid JSON)";
      }
    }
    return payload.length == 0 ? "empty" : "text or binary (not JSON)";
  }

  private static JsonNode shape(JsonNode node, int depth) {
    if (depth > MAX_DEPTH) {
      return NODES.textNode("…");
    }
    if (node.isObject()) {
      ObjectNode out = NODES.objectNode();
      Iterator<Map.Entry<String, JsonNode>> fields = node.fields();
      int n = 0;
      while (fields.hasNext() && n++ < MAX_FIELDS) {
        Map.Entry<String, JsonNode> f = fields.next();
        out.set(f.getKey(), shape(f.getValue(), depth + 1));
      }
      return out;
    }
    if (node.isArray()) {
      ArrayNode out = NODES.arrayNode();
      if (!node.isEmpty()) {
        out.add(shape(node.get(0), depth + 1));
      }
      if (node.size() > 1) {
        out.add(NODES.textNode("… " + node.size() + " items"));
      }
      return out;
    }
    return NODES.textNode(type(node));
  }

  private static String type(JsonNode node) {
    if (node.isTextual()) {
      return "string";
    }
    if (node.isNumber()) {
      return "number";
    }
    if (node.isBoolean()) {
      return "boolean";
    }
    return "null";
  }
}
