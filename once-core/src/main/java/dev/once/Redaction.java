package dev.once;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;

/**
 * How Once shows a payload to a person: by default only its size and a SHA-256 prefix, enough to
 * tell two payloads apart and to match one a user holds, nothing of its content. Also scrubs a
 * handler's error text of the payload's values before Once stores or shows it.
 */
public final class Redaction {
  private static final int MIN_SECRET = 4;
  private static final int MIN_DIGITS = 6;

  private Redaction() {}

  /** {@code "42 bytes, sha256:3f9a0c1b2d4e"}. */
  public static String summary(byte[] payload) {
    return payload.length + " bytes, sha256:" + sha256(payload).substring(0, 12);
  }

  /** Lower-case hex SHA-256 of {@code bytes}. */
  public static String sha256(byte[] bytes) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("the JDK has no SHA-256", e);
    }
  }

  /**
   * {@code text} with every value of {@code payload} replaced by {@code ***}: for JSON, each string
   * value of 4 or more characters (object keys are kept) and each number of 6 or more digits; for
   * any other payload, each run of 4 or more letters or digits. A handler's exception message often
   * quotes the input it choked on; this keeps that out of the dead-letter table, logs and the CLI.
   * It cannot know a value the handler computed from the payload.
   */
  public static String scrub(String text, byte[] payload) {
    if (text == null || text.isEmpty() || payload.length == 0) {
      return text;
    }
    String body = new String(payload, StandardCharsets.UTF_8);
    List<String> secrets = new ArrayList<>(PayloadValues.of(body, MIN_SECRET, MIN_DIGITS));
    secrets.sort(Comparator.comparingInt(String::length).reversed());
    String out = text;
    for (String s : secrets) {
      out = out.replace(s, "***");
    }
    return out;
  }
}
