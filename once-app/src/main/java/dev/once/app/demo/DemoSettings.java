package dev.once.app.demo;

import dev.once.app.common.UserError;
import java.time.Duration;

/**
 * The validated options of one demo run.
 *
 * @param lostResponseRate with the HTTP front: the share of the order API's answers lost after its
 *     commit; null: no HTTP front, orders are committed directly
 * @param retryWithNewKey with the HTTP front: the client retries with a new key (broken, to show
 *     the check failing)
 */
public record DemoSettings(
    int events,
    long seed,
    double crashRate,
    double duplicateRate,
    double poisonRate,
    int workers,
    Duration timeout,
    Double lostResponseRate,
    boolean retryWithNewKey) {

  /** Without the HTTP front. */
  public DemoSettings(
      int events,
      long seed,
      double crashRate,
      double duplicateRate,
      double poisonRate,
      int workers,
      Duration timeout) {
    this(events, seed, crashRate, duplicateRate, poisonRate, workers, timeout, null, false);
  }

  public DemoSettings {
    if (events < 1 || events > 10_000_000) {
      throw new UserError("--events must be between 1 and 10000000, was " + events);
    }
    rate("--crash-rate", crashRate);
    rate("--duplicate-rate", duplicateRate);
    rate("--poison-rate", poisonRate);
    if (workers < 1 || workers > 64) {
      throw new UserError("--workers must be between 1 and 64, was " + workers);
    }
    if (timeout.isNegative() || timeout.isZero()) {
      throw new UserError("--timeout must be > 0 seconds, was " + timeout.toSeconds());
    }
    if (lostResponseRate != null) {
      rate("--lost-response-rate", lostResponseRate); // a client gives up after 50 attempts
    }
    if (retryWithNewKey && lostResponseRate == null) {
      throw new UserError("--retry-with-new-key needs --lost-response-rate (the HTTP front)");
    }
  }

  /** The chance this run allows that an order that is not poison ends as a dead letter. */
  public static final double INNOCENT_DEAD_LETTER_CHANCE = 1e-9;

  /** The fewest attempts per delivery the demo allows, whatever the crash rate (8). */
  public static final int MIN_ATTEMPTS = 8;

  /**
   * Attempts per delivery before a dead letter, derived from the crash rate. An injected crash
   * inside a delivery's run (after its marker, after its effect: one chance each per batch) is
   * charged to that delivery like a poison that kills the process — the engine cannot tell them
   * apart, and must not. A delivery running alone is charged with chance {@code q = 1 - (1 -
   * crashRate)^2} per run; the demo allows the fewest attempts {@code n >= 8} with {@code q^n <=
   * 1e-9}, so that no innocent order is dead-lettered: 8 below rate 0.04, 9 at 0.05, 13 at 0.1, 21
   * at 0.2, 73 at 0.5. A poison order (it throws every time) takes that many runs to its dead
   * letter.
   */
  public int maxAttempts() {
    double charged = 1 - (1 - crashRate) * (1 - crashRate);
    if (charged <= 0) {
      return MIN_ATTEMPTS;
    }
    int n = (int) Math.ceil(Math.log(INNOCENT_DEAD_LETTER_CHANCE) / Math.log(charged) - 1e-9);
    return Math.max(MIN_ATTEMPTS, n);
  }

  /** Whether orders are placed through the HTTP front. */
  public boolean httpFront() {
    return lostResponseRate != null;
  }

  private static void rate(String option, double value) {
    // Above 0.5 a batch-level crash window would rarely let a batch through.
    if (!(value >= 0 && value <= 0.5)) {
      throw new UserError(option + " must be between 0 and 0.5, was " + value);
    }
  }

  /** Whether the warehouse handler fails on this order every time: a function of seed and id. */
  public boolean isPoison(long orderId) {
    long h = (seed * 0x9E3779B97F4A7C15L) ^ (orderId * 0xBF58476D1CE4E5B9L);
    h = (h ^ (h >>> 31)) * 0x94D049BB133111EBL;
    h ^= h >>> 29;
    return (h >>> 11) * 0x1.0p-53 < poisonRate;
  }
}
