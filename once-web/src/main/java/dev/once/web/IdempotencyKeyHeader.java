package dev.once.web;

import dev.once.RequestKey;
import java.util.List;

/**
 * Reads the key from the header's values: one field, either an sf-string ({@code "8e03…"}, as the
 * IETF draft has it, with {@code \"} and {@code \\} escapes) or a bare token of visible ASCII (as
 * most clients send). Anything else — the header twice, a list, a control character, a non-ASCII
 * one, more than 255 characters — is refused with the reason.
 */
public final class IdempotencyKeyHeader {
  private IdempotencyKeyHeader() {}

  /** A refused header value; the message says why, without quoting the value. */
  public static final class Invalid extends Exception {
    private static final long serialVersionUID = 1L;

    Invalid(String message) {
      super(message, null, false, false);
    }
  }

  /** The key, or null if the header is absent. */
  public static String parse(String name, List<String> values) throws Invalid {
    if (values.isEmpty()) {
      return null;
    }
    if (values.size() > 1) {
      throw new Invalid(name + " is sent " + values.size() + " times; send it once");
    }
    String v = values.get(0).strip();
    String key = v.startsWith("\"") ? sfString(name, v) : token(name, v);
    if (key.isEmpty()) {
      throw new Invalid(name + " is empty");
    }
    if (key.length() > RequestKey.MAX_LENGTH) {
      throw new Invalid(
          name + " is " + key.length() + " characters long, more than " + RequestKey.MAX_LENGTH);
    }
    return key;
  }

  private static String token(String name, String v) throws Invalid {
    for (int i = 0; i < v.length(); i++) {
      char c = v.charAt(i);
      if (c == ',') {
        throw new Invalid(name + " holds a comma: one key per request");
      }
      checkChar(name, c, i, c == ' ' || c == '"');
    }
    return v;
  }

  private static String sfString(String name, String v) throws Invalid {
    StringBuilder out = new StringBuilder();
    for (int i = 1; i < v.length(); i++) {
      char c = v.charAt(i);
      if (c == '\\') {
        char next = i + 1 < v.length() ? v.charAt(i + 1) : 0;
        if (next != '\\' && next != '"') {
          throw new Invalid(name + " has a bad escape at index " + i + ": only \\\\ and \\\"");
        }
        out.append(next);
        i++;
      } else if (c == '"') {
        if (i != v.length() - 1) {
          throw new Invalid(name + " has text after its closing quote: one key per request");
        }
        return out.toString();
      } else {
        checkChar(name, c, i, false);
        out.append(c);
      }
    }
    throw new Invalid(name + " opens a quoted string that is not closed");
  }

  private static void checkChar(String name, char c, int i, boolean refused) throws Invalid {
    if (refused || c < 0x20 || c > 0x7e) {
      throw new Invalid(
          name
              + " has character U+%04X at index %d: only printable ASCII is allowed"
                  .formatted((int) c, i));
    }
  }
}
