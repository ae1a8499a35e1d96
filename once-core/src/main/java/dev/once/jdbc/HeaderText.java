package dev.once.jdbc;

import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.function.BiConsumer;

/** Headers as URL-encoded text, {@code name=value&name=value}: the standard headers column. */
final class HeaderText {
  private HeaderText() {}

  static String encode(Map<String, String> headers) {
    StringBuilder s = new StringBuilder();
    for (Map.Entry<String, String> h : headers.entrySet()) {
      if (s.length() > 0) {
        s.append('&');
      }
      s.append(URLEncoder.encode(h.getKey(), StandardCharsets.UTF_8))
          .append('=')
          .append(URLEncoder.encode(h.getValue(), StandardCharsets.UTF_8));
    }
    return s.toString();
  }

  /** Each name and value of the text, in order, a repeated name too; a pair without '=': null. */
  static void decode(String text, BiConsumer<String, Object> each) {
    if (text == null || text.isEmpty()) {
      return;
    }
    for (String pair : text.split("&")) {
      int eq = pair.indexOf('=');
      each.accept(
          decode(eq < 0 ? pair : pair.substring(0, eq)),
          eq < 0 ? null : decode(pair.substring(eq + 1)));
    }
  }

  private static String decode(String text) {
    try {
      return URLDecoder.decode(text, StandardCharsets.UTF_8);
    } catch (IllegalArgumentException e) {
      return text; // not URL-encoded by Once: kept as it is, the decoder judges it
    }
  }
}
