package dev.once.spi;

import dev.once.ConfigurationException;
import java.time.Duration;

/**
 * The checks Once's own builders and records make, for transports and stores to fail the same way:
 * a {@link ConfigurationException} naming the setting's path and its value, e.g. {@code
 * consumer.batchSize must be between 1 and 64, was 0}.
 */
public final class Validate {
  private Validate() {}

  public static <T> T notNull(String path, T value) {
    if (value == null) {
      throw new ConfigurationException(path, "is required");
    }
    return value;
  }

  public static String notBlank(String path, String value) {
    if (value == null || value.isBlank()) {
      throw new ConfigurationException(path, "is required");
    }
    return value;
  }

  public static int range(String path, int value, int min, int max) {
    if (value < min || value > max) {
      throw new ConfigurationException(
          path, "must be between " + min + " and " + max + ", was " + value);
    }
    return value;
  }

  public static Duration positive(String path, Duration value) {
    notNull(path, value);
    if (value.isNegative() || value.isZero()) {
      throw new ConfigurationException(path, "must be > 0, was " + value);
    }
    return value;
  }

  /** {@code value} is at least {@code min} (both positive durations). */
  public static Duration atLeast(String path, Duration value, String minPath, Duration min) {
    positive(path, value);
    if (value.compareTo(min) < 0) {
      throw new ConfigurationException(
          path, "must be >= " + minPath + " (" + min + "), was " + value);
    }
    return value;
  }

  public static void fraction(String path, double value) {
    if (!(value >= 0 && value <= 1)) {
      throw new ConfigurationException(path, "must be between 0 and 1, was " + value);
    }
  }

  /** A consumer id or destination: 1–100 characters of letters, digits, '.', '_' and '-'. */
  public static String name(String path, String value) {
    notNull(path, value);
    if (!value.matches("[A-Za-z0-9._-]{1,100}")) {
      throw new ConfigurationException(
          path, "must be 1 to 100 letters, digits, '.', '_' or '-', was '" + value + "'");
    }
    return value;
  }
}
