package dev.once.spi;

import java.util.BitSet;
import java.util.Map;

/**
 * Which messages of a published batch the broker confirmed, and why the others were not. Indexes
 * refer to the batch list.
 *
 * <p>A failure is one of two kinds. A <em>refusal</em> is the broker's answer about the message
 * itself — a nack, a return (unroutable), a record the broker rejects (too large, a topic it will
 * not take): the relay charges the row an attempt, backs off, and parks it as a dead letter after
 * {@code relayRetry.maxAttempts}. A <em>loss</em> says nothing about the message — the connection
 * or channel went away before the broker answered, no answer came in time, the client gave up on a
 * retriable error, the message was held back behind another one: the relay publishes it again
 * without charging it (if the broker had taken it, the consumers' inbox makes the copy a {@code
 * DUPLICATE}).
 *
 * @param confirmed the indexes confirmed
 * @param failures the reason for each index that was not confirmed
 * @param lost the indexes of {@code failures} that are losses, not refusals
 */
public record PublishResult(BitSet confirmed, Map<Integer, String> failures, BitSet lost) {

  public PublishResult {
    confirmed = (BitSet) confirmed.clone();
    failures = Map.copyOf(failures);
    lost = (BitSet) lost.clone();
    lost.and(indexes(failures));
  }

  /** Every failure a refusal: for a transport that cannot tell a lost connection from a refusal. */
  public PublishResult(BitSet confirmed, Map<Integer, String> failures) {
    this(confirmed, failures, new BitSet());
  }

  public static PublishResult allConfirmed(int size) {
    BitSet all = new BitSet(size);
    all.set(0, size);
    return new PublishResult(all, Map.of());
  }

  public boolean isConfirmed(int index) {
    return confirmed.get(index);
  }

  /** Whether {@code index} failed for a reason that is not about the message (see above). */
  public boolean isLost(int index) {
    return lost.get(index);
  }

  /** Whether the broker refused the message at {@code index}: a failure that is not a loss. */
  public boolean isRefused(int index) {
    return failures.containsKey(index) && !lost.get(index);
  }

  @Override
  public BitSet confirmed() {
    return (BitSet) confirmed.clone();
  }

  @Override
  public BitSet lost() {
    return (BitSet) lost.clone();
  }

  private static BitSet indexes(Map<Integer, String> failures) {
    BitSet b = new BitSet();
    failures.keySet().forEach(b::set);
    return b;
  }
}
