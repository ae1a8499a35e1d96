package dev.once.app.ops;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.once.Redaction;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Iterator;
import java.util.Map;
import java.util.Set;

/**
 * How the CLI shows a dead letter's payload: by default only size, hash and JSON shape (keys and
 * value types, {@link Redaction#shape}); with mask fields, the JSON with those fields' values (at
 * any depth) replaced by {@code "***"}; the raw text only when asked with {@code --show-payload}
 * (masks still apply).
 */
final class PayloadView {
  private static final ObjectMapper JSON = new ObjectMapper();

  private PayloadView() {}

  static String render(byte[] payload, boolean show, Set<String> masks) {
    if (!show && masks.isEmpty()) {
      return Redaction.describe(payload);
    }
    String text = new String(payload, StandardCharsets.UTF_8);
    if (masks.isEmpty()) {
      return text;
    }
    try {
      JsonNode tree = JSON.readTree(text);
      mask(tree, masks);
      String masked = JSON.writeValueAsString(tree);
      return show ? masked : Redaction.summary(payload) + ", masked: " + masked;
    } catch (IOException e) {
      return Redaction.summary(payload) + " (not JSON: masks cannot apply)";
    }
  }

  private static void mask(JsonNode node, Set<String> masks) {
    if (node instanceof ObjectNode object) {
      Iterator<Map.Entry<String, JsonNode>> fields = object.fields();
      while (fields.hasNext()) {
        Map.Entry<String, JsonNode> f = fields.next();
        if (masks.contains(f.getKey())) {
          f.setValue(object.textNode("***"));
        } else {
          mask(f.getValue(), masks);
        }
      }
    } else if (node != null && node.isArray()) {
      node.forEach(child -> mask(child, masks));
    }
  }
}
