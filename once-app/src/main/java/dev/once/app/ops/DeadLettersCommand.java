package dev.once.app.ops;

import dev.once.DeadLetter;
import dev.once.DeadLetterFilter;
import dev.once.DeadLetters;
import dev.once.Once;
import dev.once.ParkedKey;
import dev.once.Tracing;
import dev.once.app.common.Database;
import dev.once.app.common.DatabaseOptions;
import dev.once.app.common.Flags;
import dev.once.app.common.Migrations;
import dev.once.app.common.TransportOptions;
import dev.once.app.common.UserError;
import dev.once.spi.Transport;
import java.io.PrintStream;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.function.Function;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code once dead-letters list | show | replay | discard}. */
@Command(
    name = "dead-letters",
    mixinStandardHelpOptions = true,
    description =
        "Events whose retries are exhausted. Payloads are shown as size and hash unless asked.",
    subcommands = {
      DeadLettersCommand.ListCmd.class,
      DeadLettersCommand.Show.class,
      DeadLetterResolutions.Replay.class,
      DeadLetterResolutions.Discard.class,
      ParkedKeysCommand.class,
      DeadLettersCommand.Move.class
    })
public final class DeadLettersCommand {

  /** Options shared by every subcommand, and the run around them. */
  abstract static class Base implements Callable<Integer> {
    @Mixin DatabaseOptions db = new DatabaseOptions();

    @Mixin DeadLetterOptions filters;

    /** The filters, narrowed to the ids given as arguments if any. */
    DeadLetterFilter filter(String status, List<String> idArgs) {
      Set<Long> ids = DeadLetterIds.parse(idArgs);
      DeadLetterFilter f = filters.filter(status);
      return ids == null ? f : f.ids(ids).limit(Math.max(f.limit(), ids.size()));
    }

    <T> T withDeadLetters(Function<DeadLetters, T> work, TransportOptions transportOptions) {
      return openDeadLetters(db, (d, t, ds) -> work.apply(d), transportOptions);
    }
  }

  /** What runs with the dead letters, the transport and the namespace's data source open. */
  interface Work<T> {
    T run(DeadLetters deadLetters, Transport transport, javax.sql.DataSource dataSource);
  }

  static <T> T openDeadLetters(
      DatabaseOptions db, Work<T> work, TransportOptions transportOptions) {
    try (Database database = db.openExisting(4)) {
      Migrations.requirePresent(database.dataSource());
      try (Transport transport =
          transportOptions.open(database.dataSource(), Duration.ofSeconds(30))) {
        try (Once once =
            Once.builder().dataSource(database.dataSource()).transport(transport).build()) {
          return work.run(once.deadLetters(), transport, database.dataSource());
        }
      }
    }
  }

  @Command(
      name = "list",
      description =
          "List dead letters (default: open ones), oldest first, --limit at a time; the last line"
              + " says how to get the next page (--after ID). Payloads are not read.")
  static final class ListCmd extends Base {
    @Option(
        names = "--status",
        defaultValue = "dead",
        description = "dead (open), replayed, discarded or all (default ${DEFAULT-VALUE}).")
    String status;

    @Option(
        names = "--after",
        paramLabel = "ID",
        defaultValue = "0",
        description =
            "Only dead letters with an id above this one: the next page after the last id shown"
                + " (default: from the first).")
    long after;

    @Option(
        names = "--broker",
        description =
            "List what the broker dead-lettered on its own instead (RabbitMQ's"
                + " <queue>.dead-letter: rejects, the delivery limit; SQS: the dead-letter queue of"
                + " a group queue's redrive policy), left where it is: at most --limit (up to"
                + " 1000) per consumer group, payloads as size and hash. Needs --transport"
                + " rabbitmq, sqs or sqs-fifo; takes --consumer, --group and --limit.")
    boolean broker;

    @Option(
        names = "--json",
        description =
            "Print one JSON object on stdout: the page's dead letters (no payload, no error"
                + " message: 'show' has them) and next_after, the id to give --after for the next"
                + " page (null on the last).")
    boolean json;

    @Mixin BrokerGroups groups;

    @Mixin TransportOptions transport;

    @Override
    public Integer call() throws java.io.IOException {
      if (after < 0) {
        throw new UserError("--after must be an id 0 or more, was " + after);
      }
      String s = status.equals("all") ? null : status;
      DeadLetterFilter f = filters.filter(s);
      if (broker) {
        BrokerDeadLetterViews.requireBroker(transport, "--broker");
        filters.onlyConsumerAndLimit("--broker", status.equals("dead"));
        Flags.range("--limit with --broker", f.limit(), 1, 1_000); // each one is held in memory
        if (json) {
          throw new UserError("--json lists Once's own dead letters; --broker prints a table");
        }
        if (after != 0) {
          throw new UserError(
              "--broker takes --consumer, --group and --limit only; --after pages Once's own"
                  + " dead letters");
        }
        return openDeadLetters(
            db,
            (d, t, ds) -> {
              BrokerGroups.Selection selected = groups.select(f.consumerId(), ds, t);
              BrokerDeadLetterViews.list(System.out, d, t, selected.groups(), f.limit());
              return note(selected);
            },
            transport);
      }
      // one more than shown: whether there is a next page, without counting them all
      DeadLetterFilter oneMore = f.limit(f.limit() + 1);
      Map<Long, ParkedKey> parked = new java.util.HashMap<>();
      List<DeadLetter> found =
          withDeadLetters(
              d -> {
                List<DeadLetter> some = d.summaries(oneMore, after);
                parked.putAll(ParkedKeysCommand.headedBy(d, some));
                return some;
              },
              transport);
      List<DeadLetter> page = found.size() > f.limit() ? found.subList(0, f.limit()) : found;
      Long next = found.size() > f.limit() ? page.get(page.size() - 1).id() : null;
      if (json) {
        System.out.println(JSON.writeValueAsString(toJson(page, parked, next)));
        return 0;
      }
      print(System.out, page, parked);
      if (next != null) {
        System.out.printf(
            "more: once dead-letters list --after %d (with the same filters)%n",
            page.get(page.size() - 1).id());
      }
      return 0;
    }
  }

  @Command(
      name = "move",
      description = {
        "Move what the broker dead-lettered on its own (RabbitMQ's <queue>.dead-letter: rejects,"
            + " the delivery limit; SQS: the redrive policy's dead-letter queue) into Once's dead"
            + " letters, where list, show, replay and discard work on them. Needs --transport"
            + " rabbitmq, sqs or sqs-fifo.",
        "One message at a time: its dead letter commits before the broker's copy is"
            + " acknowledged, so an interrupted move loses nothing, and moving a message again adds"
            + " no second dead letter. A message that cannot be decoded becomes a"
            + " MalformedMessage dead letter."
      })
  static final class Move implements Callable<Integer> {
    @Mixin DatabaseOptions db = new DatabaseOptions();

    @Option(names = "--consumer", description = "Only this consumer group.")
    String consumer;

    @Option(
        names = "--limit",
        defaultValue = "1000",
        description = "At most this many per consumer group (default ${DEFAULT-VALUE}).")
    int limit;

    @Mixin BrokerGroups groups;

    @Mixin TransportOptions transport;

    @Override
    public Integer call() {
      Flags.range("--limit", limit, 1, 1_000_000);
      BrokerDeadLetterViews.requireBroker(transport, "move");
      return openDeadLetters(
          db,
          (d, t, ds) -> {
            BrokerGroups.Selection selected = groups.select(consumer, ds, t);
            BrokerDeadLetterViews.move(System.out, System.err, d, t, selected.groups(), limit);
            return note(selected);
          },
          transport);
    }
  }

  /** Says which recorded consumers have no queue on the broker; 0, as that is no failure. */
  private static int note(BrokerGroups.Selection selected) {
    if (selected.notFoundNote() != null) {
      System.err.println("once: " + selected.notFoundNote());
    }
    return 0;
  }

  private static final com.fasterxml.jackson.databind.ObjectMapper JSON =
      new com.fasterxml.jackson.databind.ObjectMapper();

  /** The page as {@code list --json} prints it: keys as {@code status --json} names them. */
  static Map<String, Object> toJson(
      List<DeadLetter> page, Map<Long, ParkedKey> parked, Long nextAfter) {
    Map<String, Object> json = new java.util.LinkedHashMap<>();
    json.put(
        "dead_letters",
        page.stream()
            .map(
                d -> {
                  Map<String, Object> m = new java.util.LinkedHashMap<>();
                  m.put("id", d.id());
                  m.put("consumer", d.consumerId());
                  m.put("event_id", d.event().id().value());
                  m.put("destination", d.event().destination());
                  m.put("type", d.event().type());
                  m.put("status", d.status().value());
                  m.put("attempts", d.attempts());
                  m.put("error_class", d.errorClass());
                  m.put("fingerprint", d.errorFingerprint());
                  m.put("final_attempt_crashed", d.finalAttemptCrashed());
                  m.put("first_failed_at", String.valueOf(d.firstFailedAt()));
                  m.put("dead_at", String.valueOf(d.deadAt()));
                  m.put("resolved_at", d.resolvedAt() == null ? null : d.resolvedAt().toString());
                  ParkedKey k = parked.get(d.id());
                  m.put("parked_behind", k == null ? null : k.eventsBehind());
                  return m;
                })
            .toList());
    json.put("next_after", nextAfter);
    return json;
  }

  static void print(PrintStream out, List<DeadLetter> found, Map<Long, ParkedKey> parked) {
    out.printf(
        "%-6s %-12s %-28s %-16s %-8s %-12s %-20s %s%n",
        "ID", "CONSUMER", "EVENT", "TYPE", "ATTEMPTS", "FINGERPRINT", "DEAD AT", "ERROR");
    for (DeadLetter d : found) {
      out.printf(
          "%-6d %-12s %-28s %-16s %-8d %-12s %-20s %s%n",
          d.id(),
          d.consumerId(),
          d.event().id(),
          d.event().type(),
          d.attempts(),
          d.errorFingerprint(),
          d.deadAt().toString().substring(0, 19),
          simpleName(d.errorClass())
              + (d.finalAttemptCrashed() ? " (final attempt crashed)" : "")
              + (d.isOpen() ? "" : " [" + d.status() + "]")
              + ParkedKeysCommand.mark(parked.get(d.id())));
    }
    out.printf("%d dead letters%n", found.size());
    long heads = found.stream().filter(d -> parked.containsKey(d.id())).count();
    if (heads > 0) {
      out.printf(
          "%d of them head a key an ordered consumer parked: its later events wait behind it"
              + " ('once dead-letters keys')%n",
          heads);
    }
  }

  private static String simpleName(String className) {
    return className.substring(className.lastIndexOf('.') + 1);
  }

  @Command(
      name = "show",
      description =
          "Show dead letters in full (payload redacted unless asked): those whose ids are given,"
              + " else those the filters select.")
  static final class Show extends Base {
    @Parameters(
        paramLabel = "ID",
        arity = "0..*",
        description = "Ids as 'list' prints them: 12, a range 3-7, or several.")
    List<String> ids;

    @Option(names = "--show-payload", description = "Print the payload itself, on purpose.")
    boolean showPayload;

    @Option(
        names = "--mask",
        split = ",",
        description = "JSON fields whose values are masked, at any depth (e.g. card,email).")
    Set<String> masks = Set.of();

    @Mixin TransportOptions transport;

    @Override
    public Integer call() {
      DeadLetterFilter f = filter(null, ids);
      List<DeadLetter> found = withDeadLetters(d -> d.list(f), transport);
      for (DeadLetter d : found) {
        show(System.out, d);
      }
      List<Long> missing = DeadLetterIds.missing(f, found);
      if (!missing.isEmpty()) {
        System.err.println(
            "once: no dead letter " + DeadLetterIds.ranges(missing) + DeadLetterIds.withFilters(f));
        return 1;
      }
      if (found.isEmpty()) {
        System.err.println("once: no dead letter matches");
        return 1;
      }
      return 0;
    }

    private void show(PrintStream out, DeadLetter d) {
      out.printf("dead letter %d (%s)%n", d.id(), d.status());
      out.printf("  %-18s %s%n", "consumer", d.consumerId());
      out.printf("  %-18s %s%n", "event", d.event().id());
      out.printf("  %-18s %s%n", "destination", d.event().destination());
      out.printf("  %-18s %s%n", "key", d.event().key());
      out.printf("  %-18s %s%n", "type", d.event().type());
      String trace = Tracing.traceId(d.event());
      out.printf("  %-18s %s%n", "trace id", trace == null ? "(none)" : trace);
      out.printf("  %-18s %d%n", "attempts", d.attempts());
      out.printf("  %-18s %s .. %s%n", "failed", d.firstFailedAt(), d.lastFailedAt());
      out.printf("  %-18s %s%n", "dead at", d.deadAt());
      out.printf("  %-18s %s (fingerprint %s)%n", "error", d.errorClass(), d.errorFingerprint());
      out.printf("  %-18s %s%n", "message", d.errorMessage());
      if (d.finalAttemptCrashed()) {
        out.printf(
            "  %-18s %s%n",
            "final attempt",
            "crashed: delivered again and ended without an outcome (the process died or hung);"
                + (d.errorClass().equals(EXHAUSTED)
                    ? " no attempt recorded an error"
                    : " the error above is the last one recorded before"));
      }
      out.printf(
          "  %-18s %s%n", "payload", PayloadView.render(d.event().payload(), showPayload, masks));
      out.println();
    }
  }

  static final String EXHAUSTED = "dev.once.AttemptsExhausted";
}
