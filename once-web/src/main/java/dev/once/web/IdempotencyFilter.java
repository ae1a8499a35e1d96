package dev.once.web;

import dev.once.InvalidRequestKeyException;
import dev.once.RequestFingerprint;
import dev.once.RequestKey;
import dev.once.RequestKeys;
import dev.once.RequestResult;
import dev.once.StoredResponse;
import dev.once.web.Problem.Type;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpFilter;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.InputStream;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code Idempotency-Key} for a servlet container. For a request its {@link Policy} picks (by
 * default POST and PATCH): reads the key and the client's scope, fingerprints the request, and runs
 * the rest of the chain inside {@link RequestKeys#run}, so that what the handler writes on {@link
 * OnceRequests#tx} commits with the key and its response. The handler's response is held in memory
 * until that commit, then sent; a retry gets the stored one with {@code Idempotent-Replayed: true}.
 * A handler's 5xx response (or exception) rolls the transaction back and stores nothing: the retry
 * runs again.
 *
 * <p>Refusals are RFC 9457 problems: 400 (key missing, invalid or sent twice; no client scope), 413
 * (body over {@link IdempotencySettings#maxRequestBytes()}), 409 (the key is in progress), 422 (the
 * key was used with another request).
 */
public class IdempotencyFilter extends HttpFilter {
  private static final long serialVersionUID = 1L;

  /** The response header of a replayed response. */
  public static final String REPLAYED = "Idempotent-Replayed";

  /** Which requests are keyed, and how: null for a request that passes through untouched. */
  @FunctionalInterface
  public interface Policy {
    IdempotencySettings settingsFor(HttpServletRequest request);
  }

  private static final Logger log = LoggerFactory.getLogger(IdempotencyFilter.class);

  private final transient Supplier<RequestKeys> keys;
  private final transient Policy policy;
  private volatile boolean warnedScopeMissing;

  public IdempotencyFilter(RequestKeys keys, Policy policy) {
    this(() -> keys, policy);
  }

  /**
   * With request keys looked up at the first keyed request: a container (Spring) creates its
   * filters before the database is migrated, and request keys check their table when built.
   */
  public IdempotencyFilter(Supplier<RequestKeys> keys, Policy policy) {
    this.keys = keys;
    this.policy = policy;
  }

  /** Keys POST and PATCH requests with {@code settings}. */
  public static IdempotencyFilter forPostAndPatch(RequestKeys keys, IdempotencySettings settings) {
    Set<String> methods = Set.of("POST", "PATCH");
    return new IdempotencyFilter(keys, r -> methods.contains(r.getMethod()) ? settings : null);
  }

  @Override
  protected void doFilter(HttpServletRequest req, HttpServletResponse res, FilterChain chain)
      throws IOException, ServletException {
    IdempotencySettings settings = policy.settingsFor(req);
    if (settings == null) {
      chain.doFilter(req, res);
      return;
    }
    String key;
    try {
      key =
          IdempotencyKeyHeader.parse(
              settings.headerName(), Collections.list(req.getHeaders(settings.headerName())));
    } catch (IdempotencyKeyHeader.Invalid e) {
      Problem.write(res, Type.KEY_INVALID, e.getMessage());
      return;
    }
    if (key == null) {
      if (settings.required()) {
        Problem.write(
            res,
            Type.KEY_MISSING,
            settings.headerName()
                + " is required on "
                + req.getMethod()
                + " "
                + req.getRequestURI());
      } else {
        chain.doFilter(req, res);
      }
      return;
    }
    String scope = settings.scope().of(req);
    if (scope == null || scope.isEmpty()) {
      String missing = settings.scope().missing();
      if (!warnedScopeMissing) {
        warnedScopeMissing = true; // once: a client may send any number of these
        log.warn(
            "a keyed {} {} was refused with 400 scope-missing (logged once): {}",
            req.getMethod(),
            req.getRequestURI(),
            missing);
      }
      Problem.write(res, Type.SCOPE_MISSING, missing);
      return;
    }
    RequestKey requestKey;
    try {
      requestKey = RequestKey.of(scope, key);
    } catch (InvalidRequestKeyException e) {
      Problem.write(res, Type.KEY_INVALID, e.getMessage());
      return;
    }
    byte[] body = readBody(req, settings.maxRequestBytes());
    if (body == null) {
      Problem.write(
          res,
          Type.BODY_TOO_LARGE,
          "the body is over "
              + settings.maxRequestBytes()
              + " bytes; a keyed request is fingerprinted whole");
      return;
    }
    run(new CachedBodyRequest(req, body), res, chain, settings, requestKey, body);
  }

  private void run(
      HttpServletRequest req,
      HttpServletResponse res,
      FilterChain chain,
      IdempotencySettings settings,
      RequestKey key,
      byte[] body)
      throws IOException, ServletException {
    CapturingResponse[] captured = new CapturingResponse[1];
    RequestResult result;
    try {
      result =
          keys.get()
              .run(
                  key,
                  fingerprint(req, settings, body),
                  tx -> {
                    req.setAttribute(OnceRequests.TX, tx);
                    CapturingResponse capture = new CapturingResponse(res);
                    captured[0] = capture;
                    try {
                      chain.doFilter(req, capture);
                    } catch (IOException | ServletException e) {
                      throw new HandlerFailed(e);
                    } finally {
                      req.removeAttribute(OnceRequests.TX);
                    }
                    StoredResponse stored = capture.toStored(settings.storedHeaders());
                    if (stored.status() >= 500) {
                      throw new NotStored(capture);
                    }
                    return stored;
                  });
    } catch (NotStored e) {
      CapturingResponse c = e.response;
      CapturingResponse.send(res, c.getStatus(), c.allHeaders(), c.toStored(Set.of()).body());
      return;
    } catch (HandlerFailed e) {
      if (e.getCause() instanceof IOException io) {
        throw io;
      }
      throw (ServletException) e.getCause();
    }
    answer(res, result, captured[0], key);
  }

  private static void answer(
      HttpServletResponse res, RequestResult result, CapturingResponse captured, RequestKey key)
      throws IOException {
    switch (result.status()) {
      case EXECUTED -> {
        StoredResponse r = result.response();
        CapturingResponse.send(res, r.status(), captured.allHeaders(), r.body());
      }
      case REPLAYED -> {
        StoredResponse r = result.response();
        Map<String, List<String>> headers = new LinkedHashMap<>(r.headers());
        headers.put(REPLAYED, List.of("true"));
        CapturingResponse.send(res, r.status(), headers, r.body());
      }
      case FINGERPRINT_MISMATCH ->
          Problem.write(
              res,
              Type.KEY_REUSED,
              "this Idempotency-Key was first used with another request (method, path, body or"
                  + " chosen headers differ); use a new key for a new request");
      case IN_PROGRESS ->
          Problem.write(
              res,
              Type.KEY_IN_PROGRESS,
              "the first request with this Idempotency-Key has not finished; retry later");
    }
  }

  static RequestFingerprint fingerprint(
      HttpServletRequest req, IdempotencySettings settings, byte[] body) {
    Map<String, String> headers = new LinkedHashMap<>();
    for (String name : settings.fingerprintHeaders()) {
      headers.put(name, req.getHeader(name));
    }
    String path =
        req.getRequestURI() + (req.getQueryString() == null ? "" : "?" + req.getQueryString());
    return RequestFingerprint.of(req.getMethod(), path, headers, body);
  }

  /** The body, or null if it is over {@code max} bytes (read no further than that). */
  static byte[] readBody(ServletRequest req, int max) throws IOException {
    long declared = req.getContentLengthLong();
    if (declared > max) {
      return null;
    }
    try (InputStream in = req.getInputStream()) {
      byte[] b = in.readNBytes(max + 1);
      return b.length > max ? null : b;
    }
  }

  /** The handler answered 5xx: rolled back, not stored, sent as it is. */
  private static final class NotStored extends RuntimeException {
    private static final long serialVersionUID = 1L;
    final transient CapturingResponse response;

    NotStored(CapturingResponse response) {
      super(null, null, false, false);
      this.response = response;
    }
  }

  /** The handler threw a checked servlet exception: rolled back, rethrown as it was. */
  private static final class HandlerFailed extends RuntimeException {
    private static final long serialVersionUID = 1L;

    HandlerFailed(Exception cause) {
      super(cause.getMessage(), cause, false, false);
    }
  }

  @Override
  public void doFilter(ServletRequest req, ServletResponse res, FilterChain chain)
      throws IOException, ServletException {
    super.doFilter(req, res, chain);
  }
}
