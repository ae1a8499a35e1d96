package dev.once.tablequeue;

import dev.once.ConfigurationException;
import dev.once.jdbc.Dialect;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/** The consumer groups of a table queue whose receivers claim in key order. */
final class OrderedGroups {
  private final Dialect dialect;

  /** (destination, consumer group) pairs. */
  private final Set<List<String>> groups = ConcurrentHashMap.newKeySet();

  OrderedGroups(Dialect dialect) {
    this.dialect = dialect;
  }

  /**
   * From now on the group's receivers claim in key order. Refused on a database whose dialect has
   * no ordered claim (a third-party queue dialect that does not override {@code ordersByKey}).
   */
  void add(String destination, String consumerId) {
    if (!dialect.queue().ordersByKey()) {
      throw new ConfigurationException(
          "consumer.ordered",
          "true is refused for consumer '"
              + consumerId
              + "': the table queue's dialect has no ordered claim on "
              + dialect.name());
    }
    groups.add(List.of(destination, consumerId));
  }

  boolean contains(String destination, String consumerId) {
    return groups.contains(List.of(destination, consumerId));
  }
}
