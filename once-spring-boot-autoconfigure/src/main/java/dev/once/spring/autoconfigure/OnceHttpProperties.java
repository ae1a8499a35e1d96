package dev.once.spring.autoconfigure;

import java.time.Duration;
import java.util.List;
import org.springframework.boot.context.properties.ConfigurationProperties;

/** Idempotency-Key on @Idempotent handler methods (module once-web): once.http.*. */
@ConfigurationProperties(prefix = "once.http")
public class OnceHttpProperties {
  /** The request header with the client's key. Unset: once-web's default. */
  private String headerName;

  /** Refuse a request to an @Idempotent method without the key (400). */
  private boolean required = true;

  /**
   * Request headers in the fingerprint, besides method, path, query and body. Unset: once-web's
   * default.
   */
  private List<String> fingerprintHeaders;

  /** Response headers stored and replayed, besides status and body. Unset: once-web's default. */
  private List<String> storedHeaders;

  /**
   * Who the client is: principal (the authenticated user), header (a header a gateway sets), or
   * shared (one scope for every client: for an application without login; a key is then a secret).
   */
  private Scope scope = Scope.PRINCIPAL;

  /** With scope=header: the header naming the client (set or checked by a gateway). */
  private String scopeHeader = "X-Client-Id";

  /**
   * The largest request body fingerprinted; a larger one is refused with 413. Unset: once-web's
   * default.
   */
  private Integer maxRequestBytes;

  /** The largest response body stored (at most 16 MiB - 1). Unset: core's default. */
  private Integer maxResponseBytes;

  /** How long a key is kept; a retry after that runs again. Unset: core's default. */
  private Duration retention;

  /**
   * How long a retry polls for a first request in progress before 409 (0: 409 at once). Unset:
   * core's default.
   */
  private Duration maxWait;

  /** Who the client is. */
  public enum Scope {
    PRINCIPAL,
    HEADER,
    SHARED
  }

  public String getHeaderName() {
    return headerName;
  }

  public void setHeaderName(String headerName) {
    this.headerName = headerName;
  }

  public boolean isRequired() {
    return required;
  }

  public void setRequired(boolean required) {
    this.required = required;
  }

  public List<String> getFingerprintHeaders() {
    return fingerprintHeaders;
  }

  public void setFingerprintHeaders(List<String> fingerprintHeaders) {
    this.fingerprintHeaders = fingerprintHeaders;
  }

  public List<String> getStoredHeaders() {
    return storedHeaders;
  }

  public void setStoredHeaders(List<String> storedHeaders) {
    this.storedHeaders = storedHeaders;
  }

  public Scope getScope() {
    return scope;
  }

  public void setScope(Scope scope) {
    this.scope = scope;
  }

  public String getScopeHeader() {
    return scopeHeader;
  }

  public void setScopeHeader(String scopeHeader) {
    this.scopeHeader = scopeHeader;
  }

  public Integer getMaxRequestBytes() {
    return maxRequestBytes;
  }

  public void setMaxRequestBytes(Integer maxRequestBytes) {
    this.maxRequestBytes = maxRequestBytes;
  }

  public Integer getMaxResponseBytes() {
    return maxResponseBytes;
  }

  public void setMaxResponseBytes(Integer maxResponseBytes) {
    this.maxResponseBytes = maxResponseBytes;
  }

  public Duration getRetention() {
    return retention;
  }

  public void setRetention(Duration retention) {
    this.retention = retention;
  }

  public Duration getMaxWait() {
    return maxWait;
  }

  public void setMaxWait(Duration maxWait) {
    this.maxWait = maxWait;
  }
}
