package dev.once;

import java.time.Duration;

/** Builder checks that fail fast naming the setting's path and its value. */
final class Validate {
  private Validate() {}

  static void notNull(String path, Object value) {
    if (value == null) {
      throw new ConfigurationException(path, "is required");
    }
  }

  static void range(String path, int value, int min, int max) {
    if (value < min || value > max) {
      throw new ConfigurationException(
          path, "must be between " + min + " and " + max + ", was " + value);
    }
  }

  static void positive(String path, Duration value) {
    notNull(path, value);
    if (value.isNegative() || value.isZero()) {
      throw new ConfigurationException(path, "must be > 0, was " + value);
    }
  }

  /** A consumer id or destination: 1–100 characters of letters, digits, '.', '_' and '-'. */
  static void name(String path, String value) {
    notNull(path, value);
    if (!value.matches("[A-Za-z0-9._-]{1,100}")) {
      throw new ConfigurationException(
          path, "must be 1 to 100 letters, digits, '.', '_' or '-', was '" + value + "'");
    }
  }
}
