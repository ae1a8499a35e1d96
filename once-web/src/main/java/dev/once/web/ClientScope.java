package dev.once.web;

import jakarta.servlet.http.HttpServletRequest;
import java.security.Principal;

/**
 * Who sent a request: the first half of its request key, so that two clients' keys never meet.
 * Returns null when the request says nobody (then a keyed request is refused with 400).
 */
@FunctionalInterface
public interface ClientScope {

  String of(HttpServletRequest request);

  /** The authenticated principal's name (the default). */
  static ClientScope principal() {
    return r -> {
      Principal p = r.getUserPrincipal();
      return p == null ? null : p.getName();
    };
  }

  /**
   * A header's value, e.g. an API gateway's verified client id. Only safe when something in front
   * of the application sets or checks that header: a client choosing its own scope may replay
   * another's responses by sending its keys.
   */
  static ClientScope header(String name) {
    return r -> r.getHeader(name);
  }

  /** One scope for everybody: any client that knows a key gets that key's response. */
  static ClientScope shared() {
    return r -> "shared";
  }
}
