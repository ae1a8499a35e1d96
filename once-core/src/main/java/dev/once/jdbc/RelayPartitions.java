package dev.once.jdbc;

import java.util.List;

/**
 * How a relay batch begins (see {@link StoreDialect#beginRelayBatch}): how many key partitions had
 * due rows, and those of them this transaction locked. Due partitions but none locked: other relays
 * hold them.
 *
 * @param due the number of distinct key partitions of the oldest due rows
 * @param locked the partitions this transaction holds until it ends
 */
public record RelayPartitions(int due, List<Integer> locked) {
  public static final RelayPartitions NONE = new RelayPartitions(0, List.of());

  public RelayPartitions {
    locked = List.copyOf(locked);
  }
}
