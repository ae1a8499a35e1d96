package dev.once.app.common;

/** Checks of option values that fail as one line naming the option and the value. */
public final class Flags {
  private Flags() {}

  /** {@code --name must be between min and max, was value}. */
  public static void range(String flag, long value, long min, long max) {
    if (value < min || value > max) {
      throw new UserError(flag + " must be between " + min + " and " + max + ", was " + value);
    }
  }

  /** {@code --name must be min or more, was value}. */
  public static void atLeast(String flag, long value, long min) {
    if (value < min) {
      throw new UserError(flag + " must be " + min + " or more, was " + value);
    }
  }

  /** A TCP port to listen on, if given (0: any free one). */
  public static void port(String flag, Integer port) {
    if (port != null) {
      range(flag, port, 0, 65_535);
    }
  }
}
