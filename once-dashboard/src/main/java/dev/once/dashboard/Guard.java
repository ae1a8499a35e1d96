package dev.once.dashboard;

import com.sun.net.httpserver.HttpExchange;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Set;

/**
 * What every request must pass: a Host this dashboard answers to (a page on another site cannot
 * reach a loopback dashboard through DNS rebinding), and for a state-changing request the token, a
 * same-origin {@code Origin} (or none, from a non-browser client) and a JSON body.
 */
final class Guard {
  static final String TOKEN_HEADER = "X-Once-Token";

  private final byte[] token;
  private final boolean readOnly;
  private final Set<String> hosts;

  /** {@code hosts}: the Host headers accepted; empty accepts any (mounted in an application). */
  Guard(String token, boolean readOnly, Set<String> hosts) {
    this.token = token.getBytes(StandardCharsets.UTF_8);
    this.readOnly = readOnly;
    this.hosts = hosts;
  }

  boolean readOnly() {
    return readOnly;
  }

  void checkHost(HttpExchange ex) {
    String host = ex.getRequestHeaders().getFirst("Host");
    if (!hosts.isEmpty() && (host == null || !hosts.contains(host.toLowerCase()))) {
      throw new BadRequest(
          403, "Host '" + Params.shorten(String.valueOf(host)) + "' is not this dashboard's");
    }
  }

  /** For POST: read-only, origin, token, content type — in that order. */
  void checkAction(HttpExchange ex) {
    if (readOnly) {
      throw new BadRequest(
          403, "this dashboard is read-only (--read-only): replay, discard and reveal are off");
    }
    String host = ex.getRequestHeaders().getFirst("Host");
    String origin = ex.getRequestHeaders().getFirst("Origin");
    if (origin != null && !origin.equals("http://" + host)) {
      throw new BadRequest(
          403,
          "cross-origin request refused: Origin '"
              + Params.shorten(origin)
              + "' is not this dashboard (http://"
              + host
              + ")");
    }
    String site = ex.getRequestHeaders().getFirst("Sec-Fetch-Site");
    if (site != null && !site.equals("same-origin") && !site.equals("none")) {
      throw new BadRequest(403, "cross-site request refused (Sec-Fetch-Site: " + site + ")");
    }
    String given = ex.getRequestHeaders().getFirst(TOKEN_HEADER);
    if (given == null || !MessageDigest.isEqual(token, given.getBytes(StandardCharsets.UTF_8))) {
      throw new BadRequest(
          403,
          (given == null ? "missing " : "wrong ")
              + TOKEN_HEADER
              + " header: give the token printed when the dashboard started");
    }
    String type = ex.getRequestHeaders().getFirst("Content-Type");
    if (type == null || !type.toLowerCase().startsWith("application/json")) {
      throw new BadRequest(415, "Content-Type must be application/json, was " + type);
    }
  }
}
