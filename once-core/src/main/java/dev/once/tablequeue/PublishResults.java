package dev.once.tablequeue;

import dev.once.Event;
import dev.once.spi.PublishResult;
import java.sql.Statement;
import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** What a table queue's enqueue came to, as a broker's confirms say it. */
final class PublishResults {
  private PublishResults() {}

  /**
   * {@code counts}: per event of {@code batch}, the copies enqueued. An event with none had no
   * consumer group bound to its destination: unroutable, not confirmed.
   */
  static PublishResult of(List<Event> batch, int[] counts) {
    BitSet confirmed = new BitSet(batch.size());
    BitSet unroutable = new BitSet(batch.size());
    Map<Integer, String> failures = new HashMap<>();
    for (int i = 0; i < batch.size(); i++) {
      if (counts[i] > 0 || counts[i] == Statement.SUCCESS_NO_INFO) {
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
