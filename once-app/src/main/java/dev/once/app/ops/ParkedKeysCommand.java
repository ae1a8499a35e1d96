package dev.once.app.ops;

import dev.once.DeadLetter;
import dev.once.DeadLetters;
import dev.once.ParkedKey;
import dev.once.app.common.DatabaseOptions;
import dev.once.app.common.Flags;
import dev.once.app.common.TransportOptions;
import dev.once.app.common.UserError;
import java.io.PrintStream;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.function.Function;
import java.util.stream.Collectors;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code once dead-letters keys}: the keys ordered consumers parked behind a dead letter, and how
 * {@code list} marks a dead letter that heads one. Keys are identifiers and shown as they are, as
 * {@code once dead-letters show} shows a dead letter's key.
 */
@Command(
    name = "keys",
    description =
        "List the keys ordered consumers parked behind a dead letter, ordered by the head's dead"
            + " letter id, --limit at a time (the last line says how to get the next page): the"
            + " consumer group, destination, key, head event and its dead letter id, since when,"
            + " and how many events wait behind it. 'replay --key' or 'discard --key' releases one.")
final class ParkedKeysCommand implements Callable<Integer> {
  @Mixin DatabaseOptions db = new DatabaseOptions();

  @Option(names = "--consumer", description = "Only this consumer group's keys.")
  String consumer;

  @Option(names = "--key", description = "Only this key.")
  String key;

  @Option(
      names = "--after",
      paramLabel = "ID",
      defaultValue = "0",
      description = "Only keys whose head's dead letter id is above this one: the next page.")
  long after;

  @Option(names = "--limit", defaultValue = "100", description = "At most this many (default 100).")
  int limit;

  @Option(
      names = "--json",
      description =
          "Print one JSON object: the page's parked_keys and next_after (null on the last).")
  boolean json;

  @Mixin TransportOptions transport;

  @Override
  public Integer call() throws java.io.IOException {
    Flags.range("--limit", limit, 1, 100_000);
    if (after < 0) {
      throw new UserError("--after must be an id 0 or more, was " + after);
    }
    // one more than shown: whether there is a next page, without counting them all
    List<ParkedKey> found =
        DeadLettersCommand.openDeadLetters(
            db, (d, t, ds) -> d.parkedKeys(consumer, key, after, limit + 1), transport);
    List<ParkedKey> page = found.size() > limit ? found.subList(0, limit) : found;
    Long next = found.size() > limit ? page.get(page.size() - 1).deadLetterId() : null;
    Instant now = Instant.now();
    if (json) {
      Map<String, Object> out = new LinkedHashMap<>();
      out.put("parked_keys", page.stream().map(k -> toJson(k, now)).toList());
      out.put("next_after", next);
      System.out.println(new com.fasterxml.jackson.databind.ObjectMapper().writeValueAsString(out));
      return 0;
    }
    print(System.out, page, now);
    if (next != null) {
      System.out.printf("more: once dead-letters keys --after %d (with the same filters)%n", next);
    }
    return 0;
  }

  static Map<String, Object> toJson(ParkedKey k, Instant now) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("consumer", k.consumerGroup());
    m.put("destination", k.destination());
    m.put("key", k.key());
    m.put("head_event_id", k.headEventId());
    m.put("dead_letter_id", k.deadLetterId() == 0 ? null : k.deadLetterId());
    m.put("parked_at", k.parkedAt().toString());
    m.put("parked_ms", k.age(now).toMillis());
    m.put("events_behind", k.eventsBehind());
    return m;
  }

  static void print(PrintStream out, List<ParkedKey> keys, Instant now) {
    out.printf(
        "%-8s %-12s %-16s %-20s %-28s %-20s %8s %8s%n",
        "DEAD ID", "CONSUMER", "DESTINATION", "KEY", "HEAD EVENT", "PARKED AT", "FOR", "BEHIND");
    for (ParkedKey k : keys) {
      out.printf(
          "%-8s %-12s %-16s %-20s %-28s %-20s %8s %8d%n",
          k.deadLetterId() == 0 ? "-" : Long.toString(k.deadLetterId()),
          k.consumerGroup(),
          k.destination(),
          k.key(),
          k.headEventId(),
          k.parkedAt().toString().substring(0, 19),
          StatusCommand.age(k.age(now)),
          k.eventsBehind());
    }
    out.printf("%d parked keys%n", keys.size());
  }

  /** The parked keys the page's dead letters head, by dead letter id: one query for the page. */
  static Map<Long, ParkedKey> headedBy(DeadLetters d, List<DeadLetter> page) {
    List<Long> ids = page.stream().filter(DeadLetter::isOpen).map(DeadLetter::id).toList();
    return d.parkedKeysHeadedBy(ids).stream()
        .collect(Collectors.toMap(ParkedKey::deadLetterId, Function.identity()));
  }

  /** What {@code list} adds to a dead letter's line that heads a parked key. */
  static String mark(ParkedKey k) {
    return k == null ? "" : " [parked key, " + k.eventsBehind() + " behind]";
  }
}
