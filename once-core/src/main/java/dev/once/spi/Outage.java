package dev.once.spi;

import org.slf4j.Logger;
import org.slf4j.Marker;
import org.slf4j.MarkerFactory;

/**
 * How a fault of the database or the broker that lasts is logged: one WARN when it starts, DEBUG
 * for each further failure, one INFO with the count and the duration when it works again — not a
 * line (or a stack trace) per try. The engines' loops use it, and so do the RabbitMQ client's
 * exception handler and the CLI's connection pool. Safe to share between threads.
 *
 * <pre>{@code
 * Outage outage = new Outage(log, "relay");
 * outage.failed("batch failed, rows stay pending: {}", e.toString()); // WARN the first time
 * outage.ended(); // INFO "relay works again after 3 failed tries in 1200 ms"
 * }</pre>
 *
 * Pass what failed as text ({@code e.toString()}), never the exception: a stack trace per try is
 * what this avoids, and a message must not carry a password or a payload.
 *
 * <p>The WARN and the INFO carry the marker {@link #MARKER} ({@code once-outage}), so a logging
 * configuration whose level hides INFO can still show when an outage ended (logback: a {@code
 * MarkerFilter} turbo filter with {@code OnMatch=ACCEPT}, as the {@code once} command does).
 */
public final class Outage {
  /** The marker of the two lines of an outage, its start (WARN) and its end (INFO). */
  public static final Marker MARKER = MarkerFactory.getMarker("once-outage");

  private final Logger log;
  private final String what;
  private int failures;
  private long since;

  /**
   * @param log the engine's logger
   * @param what who is failing, for the lines, e.g. {@code relay}
   */
  public Outage(Logger log, String what) {
    this.log = log;
    this.what = what;
  }

  /**
   * One more failure; the first of an outage is logged at WARN as {@code what + ": " + message},
   * the others at DEBUG. {@code message} is an slf4j pattern.
   */
  public synchronized void failed(String message, Object... args) {
    if (failures++ == 0) {
      since = System.nanoTime();
      log.warn(
          MARKER, what + ": " + message + " (one line per outage; it ends with an INFO)", args);
    } else if (log.isDebugEnabled()) {
      log.debug(what + " (failure " + failures + " of this outage): " + message, args);
    }
  }

  /** The loop worked: ends the outage, if there was one, with one INFO line. */
  public synchronized void ended() {
    if (failures == 0) {
      return;
    }
    log.info(
        MARKER,
        "{} works again after {} failed tries in {} ms",
        what,
        failures,
        (System.nanoTime() - since) / 1_000_000);
    failures = 0;
  }

  /** Whether an outage is going on. */
  public synchronized boolean ongoing() {
    return failures > 0;
  }
}
