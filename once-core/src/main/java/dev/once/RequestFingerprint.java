package dev.once;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * What a request asked for, as a SHA-256 over its method, path, chosen headers and body. A key
 * reused with another fingerprint is a client's mistake (HTTP 422), never a replay.
 *
 * <p>Each part is length-prefixed, so no two different requests share the bytes hashed; header
 * names are compared case-insensitively and in name order, a missing header differs from an empty
 * one.
 *
 * @param hex 64 lowercase hex digits
 */
public record RequestFingerprint(String hex) {

  public RequestFingerprint {
    if (hex == null || !hex.matches("[0-9a-f]{64}")) {
      throw new IllegalArgumentException("requestFingerprint must be 64 lowercase hex digits");
    }
  }

  /**
   * The fingerprint of a request.
   *
   * @param method e.g. {@code POST}
   * @param path the path, with the query string if it is part of what was asked
   * @param headers the chosen headers (name → value; a null value: absent)
   * @param body the request body (null: none)
   */
  public static RequestFingerprint of(
      String method, String path, Map<String, String> headers, byte[] body) {
    MessageDigest sha = sha256();
    part(sha, bytes(method));
    part(sha, bytes(path));
    Map<String, String> sorted = new TreeMap<>();
    headers.forEach((k, v) -> sorted.put(k.toLowerCase(Locale.ROOT), v));
    sha.update(ByteBuffer.allocate(4).putInt(sorted.size()).array());
    sorted.forEach(
        (name, value) -> {
          part(sha, bytes(name));
          part(sha, value == null ? null : bytes(value));
        });
    part(sha, body);
    return new RequestFingerprint(HexFormat.of().formatHex(sha.digest()));
  }

  private static byte[] bytes(String s) {
    return s == null ? null : s.getBytes(StandardCharsets.UTF_8);
  }

  /** -1 for absent, else the length, then the bytes. */
  private static void part(MessageDigest sha, byte[] b) {
    sha.update(ByteBuffer.allocate(4).putInt(b == null ? -1 : b.length).array());
    if (b != null) {
      sha.update(b);
    }
  }

  private static MessageDigest sha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("the JDK has no SHA-256", e);
    }
  }
}
