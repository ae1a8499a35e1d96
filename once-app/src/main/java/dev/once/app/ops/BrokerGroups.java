package dev.once.app.ops;

import dev.once.app.common.UserError;
import dev.once.spi.BrokerDeadLetters;
import dev.once.spi.Transport;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import javax.sql.DataSource;
import picocli.CommandLine.Option;

/**
 * The consumer groups whose broker dead letters a command reads: those named with {@code --group
 * DESTINATION:GROUP}, else those the namespace's Once tables record ({@link RecordedGroups}) whose
 * queue the broker holds — RabbitMQ cannot list its queues over AMQP, and the database does not
 * record which destination a RabbitMQ consumer group reads, so each recorded consumer is looked for
 * under each recorded destination, and only the queues that exist are shown.
 */
final class BrokerGroups {
  /** More pairs than this to look for is a namespace to name the groups of with --group. */
  static final int MAX_LOOKUPS = 400;

  @Option(
      names = "--group",
      paramLabel = "DESTINATION:GROUP",
      description =
          "A consumer group whose broker dead letters to read (RabbitMQ queue"
              + " DESTINATION.GROUP.dead-letter; SQS: the redrive target of queue"
              + " DESTINATION__GROUP); repeatable. Default: the consumers the Once"
              + " tables record (markers, retries, dead letters) whose queue the broker holds for"
              + " a destination they record (outbox, dead letters).")
  List<String> groups;

  /** A consumer group of a destination. */
  record Group(String destination, String consumer) {}

  /**
   * The groups read, by consumer then destination, and a line saying which recorded or named ones
   * the broker does not hold (null when none).
   */
  record Selection(List<Group> groups, String notFoundNote) {}

  /** Consumer group → destination, as the dashboard takes them (a group's first destination). */
  Map<String, String> byConsumer(DataSource dataSource, Transport transport, PrintStream notes) {
    Selection selected = select(null, dataSource, transport);
    if (selected.notFoundNote() != null) {
      notes.println("once: " + selected.notFoundNote());
    }
    Map<String, String> map = new TreeMap<>();
    selected.groups().forEach(g -> map.putIfAbsent(g.consumer(), g.destination()));
    return map;
  }

  /** The groups to read, only {@code consumer}'s when given. */
  Selection select(String consumer, DataSource dataSource, Transport transport) {
    Selection all =
        groups == null || groups.isEmpty() ? found(dataSource, transport) : named(transport);
    if (consumer == null) {
      return all;
    }
    List<Group> mine = all.groups().stream().filter(g -> g.consumer().equals(consumer)).toList();
    if (mine.isEmpty()) {
      throw new UserError(
          "--consumer "
              + consumer
              + " is none of the groups read ("
              + (all.groups().isEmpty()
                  ? "none"
                  : String.join(
                      ", ", all.groups().stream().map(g -> g.consumer()).distinct().toList()))
              + "): name it with --group DESTINATION:"
              + consumer);
    }
    return new Selection(mine, null);
  }

  private Selection named(Transport transport) {
    List<Group> named = new ArrayList<>();
    for (String g : groups) {
      int colon = g.indexOf(':');
      if (colon <= 0 || colon == g.length() - 1 || g.indexOf(':', colon + 1) >= 0) {
        throw new UserError(
            "--group must be DESTINATION:GROUP, e.g. orders:billing, was '" + g + "'");
      }
      Group group = new Group(g.substring(0, colon), g.substring(colon + 1));
      if (!named.contains(group)) {
        named.add(group);
      }
    }
    named.sort(java.util.Comparator.comparing(Group::consumer).thenComparing(Group::destination));
    BrokerDeadLetters broker = transport.capability(BrokerDeadLetters.class).orElseThrow();
    List<Group> there = new ArrayList<>();
    List<String> missing = new ArrayList<>();
    for (Group g : named) {
      if (exists(broker, g.destination(), g.consumer())) {
        there.add(g);
      } else {
        missing.add(g.destination() + ":" + g.consumer());
      }
    }
    return new Selection(
        there,
        missing.isEmpty()
            ? null
            : "--group "
                + String.join(", ", missing)
                + ": no such queue on the broker (a consumer of it never started there)");
  }

  private static Selection found(DataSource dataSource, Transport transport) {
    RecordedGroups recorded = RecordedGroups.read(dataSource);
    long lookups = (long) recorded.consumers().size() * recorded.destinations().size();
    if (lookups > MAX_LOOKUPS) {
      throw new UserError(
          "the Once tables record "
              + recorded.consumers().size()
              + " consumers and "
              + recorded.destinations().size()
              + " destinations, too many pairs to look for on the broker one by one: name the"
              + " groups with --group DESTINATION:GROUP");
    }
    BrokerDeadLetters broker = transport.capability(BrokerDeadLetters.class).orElseThrow();
    List<Group> found = new ArrayList<>();
    Set<String> notFound = new TreeSet<>(recorded.consumers());
    for (String consumer : recorded.consumers()) {
      for (String destination : recorded.destinations()) {
        if (exists(broker, destination, consumer)) {
          found.add(new Group(destination, consumer));
          notFound.remove(consumer);
        }
      }
    }
    String note = null;
    if (recorded.consumers().isEmpty()) {
      note =
          "the Once tables record no consumer: name the groups to read with --group"
              + " DESTINATION:GROUP";
    } else if (!notFound.isEmpty()) {
      note =
          "no queue on the broker for "
              + String.join(", ", notFound)
              + (recorded.destinations().isEmpty()
                  ? " (the Once tables record no destination)"
                  : " under the destinations the Once tables record ("
                      + String.join(", ", recorded.destinations())
                      + ")")
              + ": name them with --group DESTINATION:GROUP";
    }
    return new Selection(found, note);
  }

  /** False too for a name the broker cannot have (RabbitMQ's names refuse some characters). */
  private static boolean exists(BrokerDeadLetters broker, String destination, String consumer) {
    try {
      return broker.hasGroup(destination, consumer);
    } catch (dev.once.ConfigurationException notAName) {
      return false;
    }
  }
}
