package dev.once;

import java.util.LinkedHashSet;
import java.util.Set;

/**
 * The values in a payload, found without a JSON library: string literals that are not object keys,
 * long digit runs, or — for a payload that does not look like JSON — runs of letters and digits.
 */
final class PayloadValues {
  private PayloadValues() {}

  static Set<String> of(String body, int minText, int minDigits) {
    String trimmed = body.strip();
    boolean json = trimmed.startsWith("{") || trimmed.startsWith("[");
    return json ? json(body, minText, minDigits) : words(body, minText);
  }

  private static Set<String> json(String body, int minText, int minDigits) {
    Set<String> values = new LinkedHashSet<>();
    int i = 0;
    while (i < body.length()) {
      char ch = body.charAt(i);
      if (ch == '"') {
        int end = endOfString(body, i + 1);
        String literal = body.substring(i + 1, end);
        int next = skipSpace(body, end + 1);
        boolean key = next < body.length() && body.charAt(next) == ':';
        if (!key && literal.length() >= minText) {
          values.add(literal);
        }
        i = end + 1;
      } else if (Character.isDigit(ch)) {
        int end = i;
        while (end < body.length() && Character.isDigit(body.charAt(end))) {
          end++;
        }
        if (end - i >= minDigits) {
          values.add(body.substring(i, end));
        }
        i = end;
      } else {
        i++;
      }
    }
    return values;
  }

  private static int endOfString(String s, int from) {
    int i = from;
    while (i < s.length() && s.charAt(i) != '"') {
      i += s.charAt(i) == '\\' ? 2 : 1;
    }
    return Math.min(i, s.length());
  }

  private static int skipSpace(String s, int from) {
    int i = from;
    while (i < s.length() && Character.isWhitespace(s.charAt(i))) {
      i++;
    }
    return i;
  }

  private static Set<String> words(String body, int minText) {
    Set<String> values = new LinkedHashSet<>();
    for (String w : body.split("[^\\p{L}\\p{N}]+")) {
      if (w.length() >= minText) {
        values.add(w);
      }
    }
    return values;
  }
}
