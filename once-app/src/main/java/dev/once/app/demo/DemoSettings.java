package dev.once.app.demo;

import dev.once.app.common.UserError;
import java.time.Duration;

/** The validated options of one demo run. */
public record DemoSettings(
    int events,
    long seed,
    double crashRate,
    double duplicateRate,
    double poisonRate,
    int workers,
    Duration timeout) {

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
