package dev.once.dashboard;

import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;

/** Query parameters, read strictly: an unknown or malformed one is a 400 naming it. */
final class Params {
  private final Map<String, String> values = new HashMap<>();

  Params(URI uri, Set<String> allowed) {
    String q = uri.getRawQuery();
    if (q == null || q.isEmpty()) {
      return;
    }
    for (String pair : q.split("&")) {
      int eq = pair.indexOf('=');
      String name = decode(eq < 0 ? pair : pair.substring(0, eq));
      String value = eq < 0 ? "" : decode(pair.substring(eq + 1));
      if (!allowed.contains(name)) {
        throw BadRequest.of("unknown parameter '" + name + "'; this endpoint takes " + allowed);
      }
      values.put(name, value);
    }
  }

  private static String decode(String s) {
    try {
      return URLDecoder.decode(s, StandardCharsets.UTF_8);
    } catch (IllegalArgumentException e) {
      throw BadRequest.of("malformed query string: " + e.getMessage());
    }
  }

  /** The value, or null when absent or empty. */
  String text(String name) {
    String v = values.get(name);
    return v == null || v.isEmpty() ? null : v;
  }

  int integer(String name, int dflt, int min, int max) {
    String v = text(name);
    if (v == null) {
      return dflt;
    }
    long n = number(name, v);
    if (n < min || n > max) {
      throw BadRequest.of(name + " must be between " + min + " and " + max + ", was " + v);
    }
    return (int) n;
  }

  long positiveLong(String name, long dflt) {
    String v = text(name);
    if (v == null) {
      return dflt;
    }
    long n = number(name, v);
    if (n < 1) {
      throw BadRequest.of(name + " must be a positive id, was " + v);
    }
    return n;
  }

  /** {@code dead} (default), {@code replayed}, {@code discarded}, or {@code all} (→ null). */
  String status() {
    String v = text("status");
    if (v == null) {
      return "dead";
    }
    return switch (v) {
      case "dead", "replayed", "discarded" -> v;
      case "all" -> null;
      default ->
          throw BadRequest.of(
              "status must be one of dead, replayed, discarded, all; was '" + shorten(v) + "'");
    };
  }

  static long number(String name, String v) {
    try {
      return Long.parseLong(v);
    } catch (NumberFormatException e) {
      throw BadRequest.of(name + " must be a whole number, was '" + shorten(v) + "'");
    }
  }

  static String shorten(String v) {
    return v.length() > 40 ? v.substring(0, 40) + "…" : v;
  }
}
