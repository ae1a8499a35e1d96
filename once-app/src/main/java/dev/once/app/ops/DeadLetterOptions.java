package dev.once.app.ops;

import dev.once.DeadLetterFilter;
import dev.once.app.common.UserError;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import picocli.CommandLine.Option;

/** The filters every {@code once dead-letters} subcommand takes. */
final class DeadLetterOptions {
  @Option(names = "--consumer", description = "Only this consumer ('(relay)' for the relay's).")
  String consumer;

  @Option(names = "--event", description = "Only this event id.")
  String event;

  @Option(names = "--type", description = "Only this event type.")
  String type;

  @Option(names = "--fingerprint", description = "Only this error fingerprint.")
  String fingerprint;

  @Option(
      names = "--since",
      description = "Dead-lettered at or after: an instant (2026-01-31T10:00:00Z) or an age (2h).")
  String since;

  @Option(names = "--until", description = "Dead-lettered before: an instant or an age.")
  String until;

  @Option(names = "--limit", defaultValue = "100", description = "At most this many (default 100).")
  int limit;

  DeadLetterFilter filter(String status) {
    if (limit < 1 || limit > 100_000) {
      throw new UserError("--limit must be between 1 and 100000, was " + limit);
    }
    return new DeadLetterFilter(
        consumer,
        event,
        type,
        fingerprint,
        time("--since", since),
        time("--until", until),
        status,
        limit);
  }

  /** Refuses the filters {@code what} cannot apply (it reads only a consumer and a limit). */
  void onlyConsumerAndLimit(String what, boolean defaultStatus) {
    String[][] given = {
      {"--event", event}, {"--type", type}, {"--fingerprint", fingerprint},
      {"--since", since}, {"--until", until}, {"--status", defaultStatus ? null : "given"}
    };
    for (String[] g : given) {
      if (g[1] != null) {
        throw new UserError(
            what
                + " takes --consumer, --group and --limit only; "
                + g[0]
                + " filters Once's own"
                + " dead letters");
      }
    }
  }

  static Instant time(String option, String value) {
    if (value == null) {
      return null;
    }
    try {
      return Instant.parse(value);
    } catch (DateTimeParseException notAnInstant) {
      try {
        return Instant.now().minus(Duration.parse("PT" + value.toUpperCase()));
      } catch (DateTimeParseException e) {
        throw new UserError(
            option
                + " must be an instant such as 2026-01-31T10:00:00Z or an age such as 2h or"
                + " 30m, was '"
                + value
                + "'");
      }
    }
  }
}
