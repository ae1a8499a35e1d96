package dev.once.app.common;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import org.slf4j.LoggerFactory;

/** Log levels the commands set at run time. */
public final class Logging {
  private Logging() {}

  /**
   * With {@code quiet}, the engine's own warnings (every injected crash is one) are not printed: a
   * demo's report says what happened.
   */
  public static void quietEngine(boolean quiet) {
    ((Logger) LoggerFactory.getLogger("dev.once")).setLevel(quiet ? Level.ERROR : Level.INFO);
  }
}
