package dev.once.spi;

import java.util.BitSet;
import java.util.Map;

/**
 * Which messages of a published batch the broker confirmed, and why the others were not. Indexes
 * refer to the batch list.
 *
 * <p>A failure is one of three kinds. A <em>refusal</em> is the broker's answer about the message
 * itself — a nack, a record the broker rejects (too large, a topic it will not take): the relay
 * charges the row an attempt, backs off, and parks it as a dead letter after {@code
 * relayRetry.maxAttempts}. A <em>loss</em> says nothing about the message — the connection or
 * channel went away before the broker answered, no answer came in time, the client gave up on a
 * retriable error, the message was held back behind another one: the relay publishes it again
 * without charging it (if the broker had taken it, the consumers' inbox makes the copy a {@code
 * DUPLICATE}). An <em>unroutable</em> message reached no consumer because none is bound to its
 * destination yet (no queue bound, no table-queue group, no topic): nothing is wrong with it, so
 * the relay keeps it pending, uncharged, and publishes it again later, until a consumer subscribes.
 *
 * @param confirmed the indexes confirmed
 * @param failures the reason for each index that was not confirmed
 * @param lost the indexes of {@code failures} that are losses, not refusals
 * @param unroutable the indexes of {@code failures} that no consumer is bound to receive
 */
public record PublishResult(
    BitSet confirmed, Map<Integer, String> failures, BitSet lost, BitSet unroutable) {

  public PublishResult {
    confirmed = (BitSet) confirmed.clone();
    failures = Map.copyOf(failures);
    BitSet failed = indexes(failures);
    lost = (BitSet) lost.clone();
    lost.and(failed);
    unroutable = (BitSet) unroutable.clone();
    unroutable.and(failed);
    unroutable.andNot(lost);
  }

  /** No failure unroutable. */
  public PublishResult(BitSet confirmed, Map<Integer, String> failures, BitSet lost) {
    this(confirmed, failures, lost, new BitSet());
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

  /** Whether no consumer is bound to receive the message at {@code index} (see above). */
  public boolean isUnroutable(int index) {
    return unroutable.get(index);
  }

  /** Whether the broker refused the message at {@code index}: neither a loss nor unroutable. */
  public boolean isRefused(int index) {
    return failures.containsKey(index) && !lost.get(index) && !unroutable.get(index);
  }

  @Override
  public BitSet confirmed() {
    return (BitSet) confirmed.clone();
  }

  @Override
  public BitSet lost() {
    return (BitSet) lost.clone();
  }

  @Override
  public BitSet unroutable() {
    return (BitSet) unroutable.clone();
  }

  private static final BitSet NO_FAILURES = new BitSet(0);

  private static BitSet indexes(Map<Integer, String> failures) {
    if (failures.isEmpty()) {
      return NO_FAILURES; // only read: and-ed into the clones above
    }
    BitSet b = new BitSet();
    failures.keySet().forEach(b::set);
    return b;
  }
}
