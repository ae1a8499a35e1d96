package dev.once.app;

import dev.once.app.common.Secrets;
import java.util.logging.Formatter;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogManager;
import java.util.logging.LogRecord;
import java.util.logging.SimpleFormatter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sends what libraries log through {@code java.util.logging} (the PostgreSQL driver: "JDBC URL
 * contains too many / characters: jdbc:postgresql://u:password@...") to logback, whose lines go
 * through {@link Secrets#scrub}, instead of JUL's own console handler, which prints them as they
 * are.
 */
final class JulBridge extends Handler {
  private static volatile boolean installed;
  private final Formatter formatter = new SimpleFormatter();

  /** Replaces the handlers of JUL's root logger by this one (once per process). */
  static synchronized void install() {
    if (installed) {
      return;
    }
    java.util.logging.Logger root = LogManager.getLogManager().getLogger("");
    for (Handler h : root.getHandlers()) {
      root.removeHandler(h);
    }
    root.addHandler(new JulBridge());
    installed = true;
  }

  @Override
  public void publish(LogRecord r) {
    Logger log = LoggerFactory.getLogger(r.getLoggerName() == null ? "jul" : r.getLoggerName());
    String message = formatter.formatMessage(r);
    Throwable thrown = r.getThrown();
    int level = r.getLevel().intValue();
    if (level >= Level.SEVERE.intValue()) {
      log.error(message, thrown);
    } else if (level >= Level.WARNING.intValue()) {
      log.warn(message, thrown);
    } else if (level >= Level.INFO.intValue()) {
      log.info(message, thrown);
    } else {
      log.debug(message, thrown);
    }
  }

  @Override
  public void flush() {}

  @Override
  public void close() {}
}
