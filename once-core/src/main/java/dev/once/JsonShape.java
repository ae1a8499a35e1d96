package dev.once;

/**
 * The shape of a JSON text — its keys and the types of its values, never a value — found by a small
 * tolerant scanner: {@code {"sku":string,"qty":number,"lines":[{"id":number},…]}}. An array shows
 * its first element's shape ({@code ,…} when there are more); deeper than {@link #MAX_DEPTH} levels
 * shows {@code {…}} or {@code […]}; text that stops being JSON ends the shape with {@code …}. Reads
 * at most {@link #MAX_INPUT} characters and writes at most {@link #MAX_OUTPUT}.
 */
final class JsonShape {
  static final int MAX_INPUT = 64 * 1024;
  static final int MAX_OUTPUT = 300;
  static final int MAX_DEPTH = 6;
  private static final int MAX_KEY = 40;

  private final String s;
  private final StringBuilder out = new StringBuilder();
  private int i;

  private JsonShape(String s) {
    this.s = s;
  }

  /** The shape of {@code text} (its first {@link #MAX_INPUT} characters). */
  static String of(String text) {
    String head = text.length() > MAX_INPUT ? text.substring(0, MAX_INPUT) : text;
    JsonShape shape = new JsonShape(head);
    try {
      shape.skipSpace();
      char first = shape.peek();
      if (first != '{' && first != '[') {
        return "not JSON";
      }
      shape.value(0, true);
    } catch (Stop e) {
      shape.out.append('…');
    }
    String shown = shape.out.toString();
    return shown.length() <= MAX_OUTPUT ? shown : shown.substring(0, MAX_OUTPUT - 1) + "…";
  }

  /** Reads one value; writes its shape if {@code write}. */
  private void value(int depth, boolean write) {
    skipSpace();
    char c = peek();
    if ((c == '{' || c == '[') && depth >= MAX_DEPTH) {
      emit(write, c == '{' ? "{…}" : "[…]");
      skipContainer();
    } else if (c == '{') {
      object(depth, write);
    } else if (c == '[') {
      array(depth, write);
    } else if (c == '"') {
      string();
      emit(write, "string");
    } else if (c == '-' || (c >= '0' && c <= '9')) {
      number();
      emit(write, "number");
    } else if (s.startsWith("true", i) || s.startsWith("null", i)) {
      emit(write, s.startsWith("true", i) ? "boolean" : "null");
      i += 4;
    } else if (s.startsWith("false", i)) {
      emit(write, "boolean");
      i += 5;
    } else {
      throw new Stop();
    }
  }

  private void object(int depth, boolean write) {
    i++; // {
    emit(write, "{");
    skipSpace();
    boolean first = true;
    while (peek() != '}') {
      if (!first) {
        expect(',');
        emit(write, ",");
      }
      skipSpace();
      String key = string();
      emit(write, "\"" + printable(key) + "\":");
      skipSpace();
      expect(':');
      value(depth + 1, write);
      skipSpace();
      first = false;
    }
    i++; // }
    emit(write, "}");
  }

  private void array(int depth, boolean write) {
    i++; // [
    emit(write, "[");
    skipSpace();
    int n = 0;
    while (peek() != ']') {
      if (n > 0) {
        expect(',');
      }
      value(depth + 1, write && n == 0);
      skipSpace();
      n++;
    }
    i++; // ]
    emit(write, n > 1 ? ",…]" : "]");
  }

  /** Skips a nested object or array without recursion (strings may hold brackets). */
  private void skipContainer() {
    int open = 0;
    do {
      char c = peek();
      if (c == '"') {
        string();
        continue;
      }
      if (c == '{' || c == '[') {
        open++;
      } else if (c == '}' || c == ']') {
        open--;
      }
      i++;
    } while (open > 0);
  }

  /** Reads a string literal (at its opening quote) and returns its raw content. */
  private String string() {
    expect('"');
    int start = i;
    while (peek() != '"') {
      i += s.charAt(i) == '\\' ? 2 : 1;
    }
    String raw = s.substring(start, Math.min(i, s.length()));
    i++;
    return raw;
  }

  private void number() {
    int start = i;
    while (i < s.length() && "+-0123456789.eE".indexOf(s.charAt(i)) >= 0) {
      i++;
    }
    if (i == start) {
      throw new Stop();
    }
  }

  private static String printable(String key) {
    String k = key.length() > MAX_KEY ? key.substring(0, MAX_KEY) + "…" : key;
    StringBuilder b = new StringBuilder(k.length());
    for (int j = 0; j < k.length(); j++) {
      char c = k.charAt(j);
      b.append(c < 0x20 || c == 0x7f || c == '"' || c == '\\' ? '?' : c);
    }
    return b.toString();
  }

  private void emit(boolean write, String text) {
    if (write) {
      out.append(text);
      if (out.length() > MAX_OUTPUT) {
        throw new Stop();
      }
    }
  }

  private void expect(char c) {
    if (peek() != c) {
      throw new Stop();
    }
    i++;
  }

  /** The next character; the end of the text stops the scan. */
  private char peek() {
    if (i >= s.length()) {
      throw new Stop();
    }
    return s.charAt(i);
  }

  private void skipSpace() {
    while (i < s.length() && Character.isWhitespace(s.charAt(i))) {
      i++;
    }
  }

  /** The text ended or stopped being JSON: the shape so far, then "…". */
  private static final class Stop extends RuntimeException {
    private static final long serialVersionUID = 1L;

    Stop() {
      super(null, null, false, false);
    }
  }
}
