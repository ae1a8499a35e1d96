package dev.once.web;

import jakarta.servlet.http.HttpServletRequest;
import java.security.Principal;

/**
 * Who sent a request: the first half of its request key, so that two clients' keys never meet.
 * Returns null when the request says nobody: then a keyed request is refused with 400 {@code
 * scope-missing}, whose detail is {@link #missing()} — what was missing and how to give it.
 */
@FunctionalInterface
public interface ClientScope {

  String of(HttpServletRequest request);

  /** Why {@link #of} found no scope, and how to give one: the detail of the 400 answer. */
  default String missing() {
    return "the IdempotencySettings' ClientScope found no client in this request";
  }

  /** This scope, with {@code missing} as what a request without a scope is told. */
  default ClientScope whenMissing(String missing) {
    ClientScope scope = this;
    return new ClientScope() {
      @Override
      public String of(HttpServletRequest request) {
        return scope.of(request);
      }

      @Override
      public String missing() {
        return missing;
      }
    };
  }

  /**
   * The authenticated principal's name (the default). A request without one (an application without
   * login, or a filter order that runs this before the authentication) has no scope.
   */
  static ClientScope principal() {
    ClientScope principal =
        r -> {
          Principal p = r.getUserPrincipal();
          return p == null ? null : p.getName();
        };
    return principal.whenMissing(
        "this request has no authenticated principal, and keys are scoped by client"
            + " (ClientScope.principal(), the default): authenticate requests before the"
            + " idempotency filter, or set IdempotencySettings.builder().scope(..) to"
            + " ClientScope.shared() in an application without login, or to"
            + " ClientScope.header(name) behind a gateway that sets that header");
  }

  /**
   * A header's value, e.g. an API gateway's verified client id. Only safe when something in front
   * of the application sets or checks that header: a client choosing its own scope may replay
   * another's responses by sending its keys.
   */
  static ClientScope header(String name) {
    ClientScope header = r -> r.getHeader(name);
    return header.whenMissing(
        "this request has no "
            + name
            + " header, and keys are scoped by it (ClientScope.header(\""
            + name
            + "\")): send it, or have the gateway in front of the application set it");
  }

  /**
   * One scope for everybody, for an application without login: any client that knows a key gets
   * that key's response, so a key is a secret (a random V4 UUID, as the draft asks, and never
   * logged).
   */
  static ClientScope shared() {
    return r -> "shared";
  }
}
