package dev.once.app.ops;

import dev.once.app.common.UserError;
import dev.once.scenario.WarehouseTables;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import picocli.CommandLine.Option;

/**
 * The consumer groups whose broker dead letters a command reads: the demo's by default, or those
 * named with {@code --group DESTINATION:GROUP} (RabbitMQ cannot list queues over AMQP, and the
 * database does not record which destination a RabbitMQ consumer group reads).
 */
final class BrokerGroups {
  @Option(
      names = "--group",
      paramLabel = "DESTINATION:GROUP",
      description =
          "A consumer group whose broker dead letters to read (RabbitMQ queue"
              + " DESTINATION.GROUP.dead-letter); repeatable. Default: the demo's, orders:warehouse"
              + " and dispatch:notifier.")
  List<String> groups;

  /** Consumer group → destination, by group name; only {@code consumer} when given. */
  Map<String, String> select(String consumer) {
    Map<String, String> all = new TreeMap<>();
    if (groups == null || groups.isEmpty()) {
      all.putAll(WarehouseTables.CONSUMER_DESTINATIONS);
    } else {
      for (String g : groups) {
        int colon = g.indexOf(':');
        if (colon <= 0 || colon == g.length() - 1 || g.indexOf(':', colon + 1) >= 0) {
          throw new UserError(
              "--group must be DESTINATION:GROUP, e.g. orders:billing, was '" + g + "'");
        }
        all.put(g.substring(colon + 1), g.substring(0, colon));
      }
    }
    if (consumer == null) {
      return all;
    }
    if (!all.containsKey(consumer)) {
      throw new UserError(
          "--consumer "
              + consumer
              + " is none of the groups read ("
              + String.join(", ", all.keySet())
              + "): name it with --group DESTINATION:"
              + consumer);
    }
    return Map.of(consumer, all.get(consumer));
  }
}
