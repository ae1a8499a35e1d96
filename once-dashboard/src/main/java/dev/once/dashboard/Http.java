package dev.once.dashboard;

import com.sun.net.httpserver.HttpExchange;
import java.io.IOException;
import java.io.OutputStream;
import java.util.Map;

/** Writing responses, with the headers every answer carries. */
final class Http {
  private Http() {}

  static void json(HttpExchange ex, int status, Object body) throws IOException {
    ex.getResponseHeaders().set("Cache-Control", "no-store");
    send(ex, status, "application/json; charset=utf-8", Json.write(body));
  }

  static void error(HttpExchange ex, int status, String message) throws IOException {
    json(ex, status, Map.of("error", message, "status", status));
  }

  static void send(HttpExchange ex, int status, String type, byte[] body) throws IOException {
    var h = ex.getResponseHeaders();
    h.set("Content-Type", type);
    h.set("X-Content-Type-Options", "nosniff");
    h.set("X-Frame-Options", "DENY");
    h.set("Referrer-Policy", "no-referrer");
    h.set(
        "Content-Security-Policy",
        "default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:;"
            + " frame-ancestors 'none'; form-action 'none'; base-uri 'none'");
    boolean head = ex.getRequestMethod().equals("HEAD");
    ex.sendResponseHeaders(status, head || body.length == 0 ? -1 : body.length);
    if (!head) {
      try (OutputStream out = ex.getResponseBody()) {
        out.write(body);
      }
    }
    ex.close();
  }
}
