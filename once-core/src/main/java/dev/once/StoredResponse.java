package dev.once;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The response a request key keeps: what the first request answered, given byte for byte to every
 * retry with the same key. Stored in the business transaction, so it exists if and only if the
 * business change committed.
 *
 * @param status the HTTP status, 100 to 599
 * @param headers the chosen response headers (e.g. {@code Content-Type}, {@code Location}), in
 *     order; names and values without CR or LF
 * @param body the body (empty for none); capped by {@link RequestKeysConfig#maxResponseBytes()}
 */
public record StoredResponse(int status, Map<String, List<String>> headers, byte[] body) {

  public StoredResponse {
    if (status < 100 || status > 599) {
      throw new IllegalArgumentException("storedResponse.status must be 100 to 599, was " + status);
    }
    Map<String, List<String>> copy = new LinkedHashMap<>();
    headers.forEach(
        (name, values) -> {
          check(name);
          values.forEach(StoredResponse::check);
          copy.put(name, List.copyOf(values));
        });
    headers = java.util.Collections.unmodifiableMap(copy);
    body = body == null ? new byte[0] : body.clone();
  }

  public static StoredResponse of(int status, Map<String, List<String>> headers, byte[] body) {
    return new StoredResponse(status, headers, body);
  }

  /** A copy of the body. */
  @Override
  public byte[] body() {
    return body.clone();
  }

  /** The body's length in bytes, without copying it. */
  public int bodyLength() {
    return body.length;
  }

  private static void check(String text) {
    if (text.indexOf('\r') >= 0 || text.indexOf('\n') >= 0) {
      throw new IllegalArgumentException("storedResponse.headers must not hold CR or LF");
    }
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof StoredResponse r
        && r.status == status
        && r.headers.equals(headers)
        && Arrays.equals(r.body, body);
  }

  @Override
  public int hashCode() {
    return 31 * (31 * status + headers.hashCode()) + Arrays.hashCode(body);
  }

  @Override
  public String toString() {
    return "StoredResponse[status="
        + status
        + ", headers="
        + headers.keySet()
        + ", body="
        + body.length
        + " bytes]";
  }
}
