package dev.once.spi;

import java.util.BitSet;
import java.util.Map;

/**
 * Which messages of a published batch the broker confirmed. Indexes refer to the batch list.
 *
 * @param confirmed the indexes confirmed
 * @param failures the reason for each index that was not confirmed
 */
public record PublishResult(BitSet confirmed, Map<Integer, String> failures) {

  public PublishResult {
    confirmed = (BitSet) confirmed.clone();
    failures = Map.copyOf(failures);
  }

  public static PublishResult allConfirmed(int size) {
    BitSet all = new BitSet(size);
    all.set(0, size);
    return new PublishResult(all, Map.of());
  }

  public boolean isConfirmed(int index) {
    return confirmed.get(index);
  }
}
