package dev.once.tablequeue;

import dev.once.Event;
import dev.once.spi.Delivery;
import dev.once.spi.PublishResult;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** The queue's rows: what a publish tells from those each event wrote, a batch's ids and order. */
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

  private static final Comparator<Delivery> BY_ID =
      Comparator.comparingLong(d -> (Long) d.handle());

  /**
   * {@code deliveries} by row id: as they are when the claim returned them so, else a sorted copy.
   */
  static List<Delivery> inIdOrder(List<Delivery> deliveries) {
    for (int i = 1; i < deliveries.size(); i++) {
      if (BY_ID.compare(deliveries.get(i - 1), deliveries.get(i)) > 0) {
        List<Delivery> sorted = new ArrayList<>(deliveries);
        sorted.sort(BY_ID);
        return sorted;
      }
    }
    return deliveries;
  }

  /** The row ids of {@code deliveries}. */
  static List<Long> ids(List<Delivery> deliveries) {
    List<Long> ids = new ArrayList<>(deliveries.size());
    for (Delivery d : deliveries) {
      ids.add((Long) d.handle());
    }
    return ids;
  }
}
