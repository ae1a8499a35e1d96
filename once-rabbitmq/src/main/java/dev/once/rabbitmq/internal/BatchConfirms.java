package dev.once.rabbitmq.internal;

import dev.once.spi.PublishResult;
import java.time.Duration;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;

/**
 * The broker's answers for one published batch: publish sequence number → index in the batch. An
 * index counts as confirmed only if the broker acked it and did not return it (a mandatory message
 * that reached no queue is returned, then acked). Everything else — nack, return, lost channel, no
 * answer in time — is a failure with its reason, so the relay keeps the row. A nack, a return and a
 * channel the broker closed over the batch's messages are refusals; a return for no route (no queue
 * bound yet) is unroutable, and a connection lost, a message never sent and no answer in time are
 * losses ({@link PublishResult}): the relay charges neither.
 */
final class BatchConfirms {
  private final NavigableMap<Long, Integer> outstanding = new TreeMap<>();
  private final Map<String, List<Integer>> byMessageId = new HashMap<>();
  private final BitSet confirmed = new BitSet();
  private final Map<Integer, String> failures = new HashMap<>();
  private final BitSet lost = new BitSet();
  private final BitSet unroutable = new BitSet();

  /** AMQP's reply code of a message returned because no queue is bound to its routing key. */
  private static final int NO_ROUTE = 312;

  private boolean timedOut;

  synchronized void sent(long seqNo, int index, String messageId) {
    outstanding.put(seqNo, index);
    byMessageId.computeIfAbsent(messageId, k -> new ArrayList<>(1)).add(index);
  }

  /** A message that never left (its channel was gone): it has no sequence number to wait for. */
  synchronized void notSent(int index, String reason) {
    failures.put(index, reason);
    lost.set(index);
  }

  synchronized void acked(long seqNo, boolean multiple) {
    for (int index : settle(seqNo, multiple)) {
      if (!failures.containsKey(index)) {
        confirmed.set(index);
      }
    }
  }

  synchronized void nacked(long seqNo, boolean multiple) {
    for (int index : settle(seqNo, multiple)) {
      failures.putIfAbsent(index, "nacked by the broker (not stored)");
    }
  }

  synchronized void returned(String messageId, int replyCode, String replyText) {
    for (int index : byMessageId.getOrDefault(messageId, List.of())) {
      failures.put(
          index, "unroutable: returned by the broker (" + replyCode + " " + replyText + ")");
      if (replyCode == NO_ROUTE) {
        unroutable.set(index);
      }
    }
  }

  /**
   * The channel closed with messages unanswered. {@code refused}: the broker closed it over what
   * was published on it (a channel error such as 404 for a missing exchange); otherwise the
   * connection went away and nothing was said about the messages.
   */
  synchronized void channelLost(String reason, boolean refused) {
    for (int index : outstanding.values()) {
      if (failures.putIfAbsent(index, "channel closed before the confirm: " + reason) == null
          && !refused) {
        lost.set(index);
      }
    }
    outstanding.clear();
    notifyAll();
  }

  private List<Integer> settle(long seqNo, boolean multiple) {
    NavigableMap<Long, Integer> done =
        multiple ? outstanding.headMap(seqNo, true) : outstanding.subMap(seqNo, true, seqNo, true);
    List<Integer> indexes = new ArrayList<>(done.values());
    done.clear();
    if (outstanding.isEmpty()) {
      notifyAll();
    }
    return indexes;
  }

  /** Waits until every message is answered or {@code timeout} ran out; then the result. */
  synchronized PublishResult await(Duration timeout, int size) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    long left;
    while (!outstanding.isEmpty() && (left = deadline - System.nanoTime()) > 0) {
      wait(Math.max(1, left / 1_000_000));
    }
    for (int index : outstanding.values()) {
      if (failures.putIfAbsent(index, "no confirm from the broker within " + timeout) == null) {
        lost.set(index);
      }
    }
    boolean timedOut = !outstanding.isEmpty();
    outstanding.clear();
    BitSet ok = (BitSet) confirmed.clone();
    for (int i = 0; i < size; i++) {
      if (failures.containsKey(i)) {
        ok.clear(i);
      }
    }
    this.timedOut = timedOut;
    return new PublishResult(ok, failures, lost, unroutable);
  }

  synchronized boolean timedOut() {
    return timedOut;
  }
}
