package dev.once.web;

import dev.once.ConfigurationException;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;

/**
 * How {@link IdempotencyFilter} treats a keyed request; build with {@link #builder()}.
 *
 * @param headerName the request header with the key (default {@code Idempotency-Key})
 * @param required whether a request without the key is refused with 400 (default true); if not, it
 *     runs without one
 * @param fingerprintHeaders request headers that are part of the fingerprint besides method, path,
 *     query and body (default {@code Content-Type})
 * @param storedHeaders response headers stored and replayed (default {@code Content-Type}, {@code
 *     Location}, {@code Content-Language}); the status and body always are
 * @param scope who sent the request (default the authenticated principal)
 * @param maxRequestBytes the largest request body read for the fingerprint (default 1 MiB); a
 *     larger one is refused with 413 before anything runs
 */
public record IdempotencySettings(
    String headerName,
    boolean required,
    List<String> fingerprintHeaders,
    Set<String> storedHeaders,
    ClientScope scope,
    int maxRequestBytes) {

  public IdempotencySettings {
    if (headerName == null || headerName.isBlank()) {
      throw new ConfigurationException("idempotency.headerName", "must not be blank");
    }
    if (scope == null) {
      throw new ConfigurationException("idempotency.scope", "is required");
    }
    if (maxRequestBytes < 0) {
      throw new ConfigurationException(
          "idempotency.maxRequestBytes", "must be >= 0, was " + maxRequestBytes);
    }
    fingerprintHeaders = fingerprintHeaders.stream().map(IdempotencySettings::lower).toList();
    TreeSet<String> stored = new TreeSet<>(String.CASE_INSENSITIVE_ORDER);
    stored.addAll(storedHeaders);
    storedHeaders = java.util.Collections.unmodifiableSet(stored);
  }

  public static final IdempotencySettings DEFAULT = builder().build();

  public static Builder builder() {
    return new Builder();
  }

  private static String lower(String s) {
    return s.toLowerCase(Locale.ROOT);
  }

  /** The settings of {@link IdempotencySettings}. */
  public static final class Builder {
    private String headerName = "Idempotency-Key";
    private boolean required = true;
    private List<String> fingerprintHeaders = List.of("Content-Type");
    private Set<String> storedHeaders = Set.of("Content-Type", "Location", "Content-Language");
    private ClientScope scope = ClientScope.principal();
    private int maxRequestBytes = 1024 * 1024;

    private Builder() {}

    public Builder headerName(String headerName) {
      this.headerName = headerName;
      return this;
    }

    public Builder required(boolean required) {
      this.required = required;
      return this;
    }

    public Builder fingerprintHeaders(List<String> fingerprintHeaders) {
      this.fingerprintHeaders = List.copyOf(fingerprintHeaders);
      return this;
    }

    public Builder storedHeaders(Set<String> storedHeaders) {
      this.storedHeaders = Set.copyOf(storedHeaders);
      return this;
    }

    public Builder scope(ClientScope scope) {
      this.scope = scope;
      return this;
    }

    public Builder maxRequestBytes(int maxRequestBytes) {
      this.maxRequestBytes = maxRequestBytes;
      return this;
    }

    public IdempotencySettings build() {
      return new IdempotencySettings(
          headerName, required, fingerprintHeaders, storedHeaders, scope, maxRequestBytes);
    }
  }
}
