package dev.once.app.proof;

import dev.once.app.UserError;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * The validated options of one {@code once verify} run.
 *
 * @param rate orders per second the producer commits; chosen from events and kills when 0
 * @param childArgs the options every child gets: database URL and transport
 */
record VerifySettings(
    int workers,
    int events,
    int kills,
    long seed,
    double rate,
    Duration timeout,
    List<String> childArgs,
    Path logs) {

  VerifySettings {
    if (workers < 1 || workers > 32) {
      throw new UserError("--workers must be between 1 and 32, was " + workers);
    }
    if (events < 1 || events > 10_000_000) {
      throw new UserError("--events must be between 1 and 10000000, was " + events);
    }
    if (kills < 0) {
      throw new UserError("--kills must be >= 0, was " + kills);
    }
    if (rate < 0) {
      throw new UserError("--rate must be >= 0, was " + rate);
    }
  }

  /**
   * The producer's rate: as given, or so that producing lasts about as long as the kills take
   * (about 1.5 s each, a JVM restart included), between 20 and 300 orders/s.
   */
  double producerRate() {
    if (rate > 0) {
      return rate;
    }
    double killSeconds = Math.max(1, kills) * 1.5;
    return Math.max(20, Math.min(300, events / killSeconds));
  }
}
