package dev.once;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;

/**
 * How Once shows a payload to a person: by default only its size, a SHA-256 prefix (enough to tell
 * two payloads apart and to match one a user holds) and its JSON shape (keys and value types),
 * nothing of its values. Also scrubs a handler's error text of the payload's values before Once
 * stores or shows it.
 */
public final class Redaction {
  private static final int MIN_SECRET = 4;
  private static final int MIN_DIGITS = 6;
  private static final int PREFIX = Math.min(MIN_SECRET, MIN_DIGITS);

  /** The most of a text {@link #scrub} reads; the rest is cut off before scrubbing. */
  public static final int MAX_SCRUBBED_TEXT = 4096;

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
   * The JSON shape of {@code payload}: its keys and the types of its values, never a value, such as
   * {@code {"sku":string,"qty":number,"lines":[{"id":number},…]}}; {@code not JSON} for anything
   * else. Reads at most the first 64 KiB and shows at most 300 characters.
   */
  public static String shape(byte[] payload) {
    int n = Math.min(payload.length, JsonShape.MAX_INPUT);
    return JsonShape.of(new String(payload, 0, n, StandardCharsets.UTF_8));
  }

  /**
   * {@link #summary} and {@link #shape}: {@code "42 bytes, sha256:3f9a0c1b2d4e, {"qty":number}"}.
   */
  public static String describe(byte[] payload) {
    return summary(payload) + ", " + shape(payload);
  }

  /**
   * {@code text} with every value of {@code payload} replaced by {@code ***}: for JSON, each string
   * value of 4 or more characters (object keys are kept) and each number of 6 or more digits; for
   * any other payload, each run of 4 or more letters or digits. A handler's exception message often
   * quotes the input it choked on; this keeps that out of the dead-letter table, logs and the CLI.
   * It cannot know a value the handler computed from the payload.
   *
   * <p>The text is cut to its first {@value #MAX_SCRUBBED_TEXT} characters before it is scrubbed (a
   * value the cut splits is masked too), and each position of the text is compared only with the
   * values that start with the same four characters: the cost is the payload's size once plus the
   * text's, whatever the two hold.
   */
  public static String scrub(String text, byte[] payload) {
    if (text == null || text.isEmpty() || payload.length == 0) {
      return text;
    }
    boolean cut = text.length() > MAX_SCRUBBED_TEXT;
    String head = cut ? text.substring(0, MAX_SCRUBBED_TEXT) : text;
    String body = new String(payload, StandardCharsets.UTF_8);
    Map<String, List<String>> byPrefix = new HashMap<>();
    for (String v : PayloadValues.of(body, MIN_SECRET, MIN_DIGITS)) {
      byPrefix.computeIfAbsent(v.substring(0, PREFIX), k -> new ArrayList<>()).add(v);
    }
    byPrefix.values().forEach(l -> l.sort(Comparator.comparingInt(String::length).reversed()));
    StringBuilder out = new StringBuilder(head.length());
    int i = 0;
    while (i < head.length()) {
      int end = match(head, i, byPrefix);
      if (end > i) {
        out.append("***");
        i = end;
      } else {
        out.append(head.charAt(i++));
      }
    }
    return cut ? out.append('…').toString() : out.toString();
  }

  /** Where the longest value starting at {@code i} ends (the text's end if it cuts one); or i. */
  private static int match(String text, int i, Map<String, List<String>> byPrefix) {
    if (i + PREFIX > text.length()) {
      return i;
    }
    List<String> candidates = byPrefix.get(text.substring(i, i + PREFIX));
    if (candidates == null) {
      return i;
    }
    for (String v : candidates) {
      if (text.startsWith(v, i)) {
        return i + v.length();
      }
      if (i + v.length() > text.length() && v.startsWith(text.substring(i))) {
        return text.length();
      }
    }
    return i;
  }
}
