package dev.once.app.proof;

import dev.once.app.common.UserError;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * The validated options of one {@code once verify} run.
 *
 * @param rate orders per second the producer commits at most; 0 for no limit but the gate
 * @param childArgs the options every child gets on its command line: the transport, nothing secret
 * @param childEnv what every child gets in its environment: the database URL and the RabbitMQ URI,
 *     which may hold passwords (a command line is visible to every user in {@code ps})
 */
record VerifySettings(
    int workers,
    int events,
    int kills,
    long seed,
    double rate,
    Duration timeout,
    List<String> childArgs,
    Map<String, String> childEnv,
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

  /** True on the table queue, whose deliveries, waiting or held, are rows the check can count. */
  boolean queueInDatabase() {
    int i = childArgs.indexOf("--transport");
    return i >= 0 && i + 1 < childArgs.size() && childArgs.get(i + 1).equals("table");
  }
}
