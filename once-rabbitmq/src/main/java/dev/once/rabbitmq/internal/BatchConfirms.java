package dev.once.rabbitmq.internal;

import dev.once.spi.PublishResult;
import java.time.Duration;
import java.util.Arrays;
import java.util.BitSet;
import java.util.HashMap;
import java.util.Map;

/**
 * The broker's answers for one published batch: publish sequence number → index in the batch. An
 * index counts as confirmed only if the broker acked it and did not return it (a mandatory message
 * that reached no queue is returned, then acked). Everything else — nack, return, lost channel, no
 * answer in time — is a failure with its reason, so the relay keeps the row. A nack, a return and a
 * channel the broker closed over the batch's messages are refusals; a return for no route (no queue
 * bound yet) is unroutable, and a connection lost, a message never sent and no answer in time are
 * losses ({@link PublishResult}): the relay charges neither.
 *
 * <p>A relay at a paced rate publishes a batch of one or two: what a batch keeps is a few arrays of
 * its size (sequence numbers rise in the order the messages were sent), and a map of failures only
 * when something failed.
 */
final class BatchConfirms {
  /** AMQP's reply code of a message returned because no queue is bound to its routing key. */
  private static final int NO_ROUTE = 312;

  /** Sent messages in the order sent: sequence number, index in the batch, message id. */
  private final long[] seqNos;

  private final int[] indexes;
  private final String[] messageIds;
  private int sent;

  /** The sent messages not answered yet, by their place in {@link #seqNos}. */
  private final BitSet open = new BitSet();

  private final BitSet confirmed = new BitSet();

  /** Null until a message is lost, or returned for no route (read only, PublishResult copies). */
  private BitSet lost;

  private BitSet unroutable;

  private static final BitSet NONE = new BitSet(0);

  /** Index → reason; null until something fails. */
  private Map<Integer, String> failures;

  private boolean timedOut;

  /** For a batch of {@code size} messages. */
  BatchConfirms(int size) {
    seqNos = new long[size];
    indexes = new int[size];
    messageIds = new String[size];
  }

  synchronized void sent(long seqNo, int index, String messageId) {
    seqNos[sent] = seqNo;
    indexes[sent] = index;
    messageIds[sent] = messageId;
    open.set(sent++);
  }

  /** A message that never left (its channel was gone): it has no sequence number to wait for. */
  synchronized void notSent(int index, String reason) {
    failures().put(index, reason);
    lost().set(index);
  }

  synchronized void acked(long seqNo, boolean multiple) {
    settle(seqNo, multiple, true);
  }

  synchronized void nacked(long seqNo, boolean multiple) {
    settle(seqNo, multiple, false);
  }

  synchronized void returned(String messageId, int replyCode, String replyText) {
    for (int k = 0; k < sent; k++) {
      if (messageIds[k].equals(messageId)) {
        int index = indexes[k];
        failures()
            .put(index, "unroutable: returned by the broker (" + replyCode + " " + replyText + ")");
        if (replyCode == NO_ROUTE) {
          if (unroutable == null) {
            unroutable = new BitSet();
          }
          unroutable.set(index);
        }
      }
    }
  }

  /**
   * The channel closed with messages unanswered. {@code refused}: the broker closed it over what
   * was published on it (a channel error such as 404 for a missing exchange); otherwise the
   * connection went away and nothing was said about the messages.
   */
  synchronized void channelLost(String reason, boolean refused) {
    failOpen("channel closed before the confirm: " + reason, !refused);
    notifyAll();
  }

  /** Marks the answered messages: up to {@code seqNo} if {@code multiple}, else that one. */
  private void settle(long seqNo, boolean multiple, boolean ack) {
    int to = Arrays.binarySearch(seqNos, 0, sent, seqNo);
    if (to < 0 && !multiple) {
      return; // not this batch's
    }
    int end = to >= 0 ? to + 1 : -to - 1;
    for (int k = open.nextSetBit(multiple ? 0 : to);
        k >= 0 && k < end;
        k = open.nextSetBit(k + 1)) {
      open.clear(k);
      int index = indexes[k];
      if (ack) {
        if (failures == null || !failures.containsKey(index)) {
          confirmed.set(index);
        }
      } else {
        failures().putIfAbsent(index, "nacked by the broker (not stored)");
      }
    }
    if (open.isEmpty()) {
      notifyAll();
    }
  }

  /** Every unanswered message fails with {@code reason} (unless it failed already), as lost too. */
  private void failOpen(String reason, boolean asLost) {
    for (int k = open.nextSetBit(0); k >= 0; k = open.nextSetBit(k + 1)) {
      int index = indexes[k];
      if (failures().putIfAbsent(index, reason) == null && asLost) {
        lost().set(index);
      }
    }
    open.clear();
  }

  private BitSet lost() {
    if (lost == null) {
      lost = new BitSet();
    }
    return lost;
  }

  private Map<Integer, String> failures() {
    if (failures == null) {
      failures = new HashMap<>();
    }
    return failures;
  }

  /** Waits until every message is answered or {@code timeout} ran out; then the result. */
  synchronized PublishResult await(Duration timeout, int size) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    long left;
    while (!open.isEmpty() && (left = deadline - System.nanoTime()) > 0) {
      wait(Math.max(1, left / 1_000_000));
    }
    timedOut = !open.isEmpty();
    if (timedOut) {
      failOpen("no confirm from the broker within " + timeout, true);
    }
    BitSet lostOnes = lost == null ? NONE : lost;
    BitSet unroutableOnes = unroutable == null ? NONE : unroutable;
    if (failures == null) {
      return new PublishResult(confirmed, Map.of(), lostOnes, unroutableOnes);
    }
    BitSet ok = (BitSet) confirmed.clone();
    for (int i = 0; i < size; i++) {
      if (failures.containsKey(i)) {
        ok.clear(i);
      }
    }
    return new PublishResult(ok, failures, lostOnes, unroutableOnes);
  }

  synchronized boolean timedOut() {
    return timedOut;
  }
}
