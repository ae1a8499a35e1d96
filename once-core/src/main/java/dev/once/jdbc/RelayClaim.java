package dev.once.jdbc;

import java.util.List;

/**
 * A relay batch begun and its rows claimed (see {@link StoreDialect#claimRelayBatch}).
 *
 * @param partitions the due partitions and those this transaction locked
 * @param rows the unsent rows of the locked partitions due now, oldest first, at most the batch's
 *     limit; none when it locked none
 */
public record RelayClaim(RelayPartitions partitions, List<OutboxRow> rows) {
  public static final RelayClaim NONE = new RelayClaim(RelayPartitions.NONE, List.of());

  public RelayClaim {
    rows = List.copyOf(rows);
  }
}
