package dev.once.internal;

import org.slf4j.Logger;

/**
 * How an engine loop logs a fault of the database or the broker that lasts: one WARN when it
 * starts, DEBUG for each further failure, one INFO with the count and the duration when the loop
 * works again — not a line (or a stack trace) per try. Used by one thread.
 */
final class Outage {
  private final Logger log;
  private final String what;
  private int failures;
  private long since;

  /**
   * @param log the engine's logger
   * @param what who is failing, for the lines, e.g. {@code relay}
   */
  Outage(Logger log, String what) {
    this.log = log;
    this.what = what;
  }

  /**
   * One more failure; the first of an outage is logged at WARN as {@code what + ": " + message},
   * the others at DEBUG. {@code message} is an slf4j pattern.
   */
  void failed(String message, Object... args) {
    if (failures++ == 0) {
      since = System.nanoTime();
      log.warn(what + ": " + message + " (one line per outage; it ends with an INFO)", args);
    } else if (log.isDebugEnabled()) {
      log.debug(what + " (failure " + failures + " of this outage): " + message, args);
    }
  }

  /** The loop worked: ends the outage, if there was one, with one INFO line. */
  void ended() {
    if (failures == 0) {
      return;
    }
    log.info(
        "{} works again after {} failed tries in {} ms",
        what,
        failures,
        (System.nanoTime() - since) / 1_000_000);
    failures = 0;
  }

  /** Whether an outage is going on. */
  boolean ongoing() {
    return failures > 0;
  }
}
