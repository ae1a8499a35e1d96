package dev.once.internal.relay;

import dev.once.spi.RawMessage;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * Which claimed rows of a relay batch go out, for the key-ordered destinations. The claim already
 * leaves out a row whose key has an earlier row in backoff or parked; within the batch, a row whose
 * key had an earlier row that does not decode (parked by this batch) waits, and so does every row
 * after a key's first where the broker settles each message on its own: a later row could be
 * confirmed while the first is refused or lost, and overtake it. A transport that publishes in the
 * relay's transaction (the table queue) takes a key's rows together or not at all, in order.
 */
final class KeyOrderBatch {
  private KeyOrderBatch() {}

  /**
   * A row's destination and key when its destination is one of {@code keyOrdered} and it has a key
   * (read from the row as stored, so also for a row that does not decode), else null.
   */
  static String orderedKey(RawMessage row, Set<String> keyOrdered) {
    Object key = row.headers().get(RawMessage.KEY);
    return key != null && keyOrdered.contains(row.destination())
        ? row.destination() + '\n' + key
        : null;
  }

  /**
   * The rows of {@code claimed} to publish, in order.
   *
   * @param orderedKey a row's (destination, key) when its destination is key-ordered and it has a
   *     key, else null
   * @param malformed whether a row does not decode (it is kept, to be parked)
   * @param oneAtATime whether only a key's first row may go in one batch
   */
  static <R> List<R> publishable(
      List<R> claimed, Function<R, String> orderedKey, Predicate<R> malformed, boolean oneAtATime) {
    List<R> out = new ArrayList<>(claimed.size());
    Set<String> held = new HashSet<>();
    for (R row : claimed) {
      String key = orderedKey.apply(row);
      if (key != null && held.contains(key)) {
        continue; // stays pending, untouched: a later batch takes it
      }
      out.add(row);
      if (key != null && (oneAtATime || malformed.test(row))) {
        held.add(key);
      }
    }
    return out;
  }
}
