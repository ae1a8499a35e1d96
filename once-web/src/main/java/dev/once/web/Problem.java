package dev.once.web;

import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

/** Writes an RFC 9457 problem ({@code application/problem+json}) for the filter's own refusals. */
final class Problem {
  private Problem() {}

  /** The problem types, documented in docs/HTTP.md. */
  enum Type {
    KEY_MISSING(400, "Idempotency-Key is missing"),
    KEY_INVALID(400, "Idempotency-Key is invalid"),
    SCOPE_MISSING(400, "The request has no client scope"),
    BODY_TOO_LARGE(413, "The request body is too large to be fingerprinted"),
    KEY_IN_PROGRESS(409, "A request with this Idempotency-Key is in progress"),
    KEY_REUSED(422, "Idempotency-Key was used with another request");

    final int status;
    final String title;

    Type(int status, String title) {
      this.status = status;
      this.title = title;
    }

    String uri() {
      return "urn:once:problem:" + name().toLowerCase(java.util.Locale.ROOT).replace('_', '-');
    }
  }

  static void write(HttpServletResponse response, Type type, String detail) throws IOException {
    byte[] body =
        ("{\"type\":\""
                + type.uri()
                + "\",\"title\":\""
                + json(type.title)
                + "\",\"status\":"
                + type.status
                + ",\"detail\":\""
                + json(detail)
                + "\"}")
            .getBytes(StandardCharsets.UTF_8);
    response.setStatus(type.status);
    response.setContentType("application/problem+json");
    if (type == Type.KEY_IN_PROGRESS) {
      response.setHeader("Retry-After", "1");
    }
    response.setContentLength(body.length);
    response.getOutputStream().write(body);
  }

  static String json(String s) {
    StringBuilder out = new StringBuilder(s.length() + 8);
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"' -> out.append("\\\"");
        case '\\' -> out.append("\\\\");
        default -> {
          if (c < 0x20) {
            out.append(String.format("\\u%04x", (int) c));
          } else {
            out.append(c);
          }
        }
      }
    }
    return out.toString();
  }
}
