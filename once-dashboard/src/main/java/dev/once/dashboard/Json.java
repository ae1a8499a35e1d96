package dev.once.dashboard;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.time.Instant;

/** JSON in and out; times as ISO-8601 text, durations as seconds. */
final class Json {
  static final ObjectMapper MAPPER =
      new ObjectMapper().enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

  private Json() {}

  static byte[] write(Object value) {
    try {
      return MAPPER.writeValueAsBytes(value);
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The request body as a JSON object; a 400 when it is not one. */
  static JsonNode readObject(InputStream body) {
    try {
      byte[] bytes = body.readNBytes(1 << 20);
      JsonNode node = MAPPER.readTree(bytes);
      if (node == null || !node.isObject()) {
        throw BadRequest.of("the body must be a JSON object");
      }
      return node;
    } catch (JsonProcessingException e) {
      throw BadRequest.of("the body is not valid JSON: " + e.getOriginalMessage());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static String time(Instant at) {
    return at == null ? null : at.toString();
  }

  static double seconds(Duration d) {
    return d.toMillis() / 1000.0;
  }
}
