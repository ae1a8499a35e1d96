package dev.once.tablequeue;

import dev.once.Event;
import dev.once.spi.PublishResult;
import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** What a publish to the queue tells from the rows each event wrote. */
final class Rows {
  private Rows() {}

  /**
   * Confirmed where {@code counts[i]} rows were written (or the driver did not say how many);
   * unroutable where none: no consumer group is bound to the event's destination.
   */
  static PublishResult result(List<Event> batch, int[] counts) {
    BitSet confirmed = new BitSet(batch.size());
    BitSet unroutable = new BitSet(batch.size());
    Map<Integer, String> failures = new HashMap<>();
    for (int i = 0; i < batch.size(); i++) {
      if (counts[i] > 0 || counts[i] == java.sql.Statement.SUCCESS_NO_INFO) {
        confirmed.set(i);
      } else {
        unroutable.set(i);
        failures.put(
            i,
            "unroutable: no consumer group is bound to destination '"
                + batch.get(i).destination()
                + "'");
      }
    }
    return new PublishResult(confirmed, failures, new BitSet(), unroutable);
  }
}
