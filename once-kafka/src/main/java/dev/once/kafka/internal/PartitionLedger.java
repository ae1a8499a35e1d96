package dev.once.kafka.internal;

import dev.once.spi.Delivery;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongSupplier;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * The bookkeeping between one Kafka consumer's poll thread and the receivers of its workers, with
 * no Kafka client in it (unit-tested without a broker): which partitions are assigned, which
 * records are open and who holds them, what may be committed, and what was reserved in the
 * committed note.
 *
 * <ul>
 *   <li><b>Order and parallelism.</b> A key is in one receiver at a time: a record is handed out
 *       only if no earlier open record of its key (same partition) is held by another receiver or
 *       waits for a retry; {@link #inKeyOrder in key order}, only its earliest open record. Other
 *       keys of the partition go to other workers meanwhile.
 *   <li><b>Offsets.</b> What may be committed per partition is the lowest offset not yet
 *       acknowledged (the highest contiguous processed offset + 1). A record polled but unfinished
 *       is never behind it.
 *   <li><b>Redeliveries.</b> A nacked record waits in memory and comes back with its count + 1; a
 *       closed receiver's records come back at once; records up to a taken-over partition's mark
 *       come flagged redelivered with the round's count (see {@link OffsetNote}).
 *   <li><b>Revoked or lost.</b> A partition being released hands out nothing more; once released,
 *       an acknowledgement of its records is dropped (the new owner gets them again).
 * </ul>
 *
 * Thread-safe: one lock, one condition that every change signals.
 */
final class PartitionLedger {
  /** A polled record, decoded; {@code decoded} null for a record this group skips (a replay). */
  record Polled(long offset, Delivery decoded) {}

  private final ReentrantLock lock = new ReentrantLock();
  private final Condition changed = lock.newCondition();
  private final Map<TopicPartition, PartitionState> parts = new HashMap<>();
  private final AtomicInteger rotation = new AtomicInteger();
  private final Duration maxNackDelay;
  private final LongSupplier nanos;
  private int openRecords;
  private boolean stopped;
  private volatile boolean inKeyOrder;

  /**
   * @param maxNackDelay the longest a nacked record is held before it is handed out again
   * @param nanos the clock of nack delays and revoke waits ({@code System::nanoTime})
   */
  PartitionLedger(Duration maxNackDelay, LongSupplier nanos) {
    this.maxNackDelay = maxNackDelay;
    this.nanos = nanos;
  }

  /** From now on a key's records go out one at a time, each after the one before it was acked. */
  void inKeyOrder() {
    inKeyOrder = true;
  }

  // ---------------------------------------------------------------- the poll thread's side

  /** Records polled and not yet acknowledged. */
  int openRecords() {
    lock.lock();
    try {
      return openRecords;
    } finally {
      lock.unlock();
    }
  }

  /** How many partitions are assigned (and not being released). */
  int assignedPartitions() {
    lock.lock();
    try {
      return parts.size();
    } finally {
      lock.unlock();
    }
  }

  /** The partitions assigned now. */
  List<TopicPartition> partitions() {
    lock.lock();
    try {
      return new ArrayList<>(parts.keySet());
    } finally {
      lock.unlock();
    }
  }

  /** Takes over freshly assigned partitions (each from {@link PartitionState#assigned}). */
  void assigned(Collection<PartitionState> fresh) {
    lock.lock();
    try {
      for (PartitionState p : fresh) {
        parts.put(p.tp, p);
      }
      changed.signalAll();
    } finally {
      lock.unlock();
    }
  }

  /**
   * The notes to commit before {@code batch} is handed out: for each partition whose last polled
   * offset passes its reserved mark, a mark {@link PartitionState#RESERVE} offsets further, at the
   * offset committed now. Empty if every record is covered already.
   */
  Map<TopicPartition, OffsetAndMetadata> reserve(Map<TopicPartition, List<Polled>> batch) {
    Map<TopicPartition, OffsetAndMetadata> reserve = new HashMap<>();
    lock.lock();
    try {
      batch.forEach(
          (tp, records) -> {
            PartitionState p = parts.get(tp);
            OffsetAndMetadata note = p == null ? null : p.reserve(records);
            if (note != null) {
              reserve.put(tp, note);
            }
          });
    } finally {
      lock.unlock();
    }
    return reserve;
  }

  /** These offsets were committed (synchronously). */
  void committed(Map<TopicPartition, OffsetAndMetadata> offsets) {
    lock.lock();
    try {
      for (Map.Entry<TopicPartition, OffsetAndMetadata> o : offsets.entrySet()) {
        PartitionState p = parts.get(o.getKey());
        if (p != null) {
          p.lastCommitted = o.getValue().offset();
        }
      }
    } finally {
      lock.unlock();
    }
  }

  /**
   * Opens the records of {@code batch} for hand-out. Returns, for each partition of the batch that
   * is not (or no longer) this ledger's to hand out, its first polled offset: the poll thread seeks
   * back there, so whoever owns the partition reads them again.
   */
  Map<TopicPartition, Long> add(Map<TopicPartition, List<Polled>> batch) {
    Map<TopicPartition, Long> notOurs = new LinkedHashMap<>();
    lock.lock();
    try {
      batch.forEach(
          (tp, records) -> {
            PartitionState p = parts.get(tp);
            if (p == null || p.revoking) {
              notOurs.put(tp, records.get(0).offset());
              return;
            }
            for (Polled r : records) {
              p.fetchedTo = r.offset() + 1;
              if (r.decoded() == null) {
                continue; // never handed out: committed with the next offsets
              }
              OpenRecord rec = new OpenRecord(p, r.offset(), r.decoded());
              if (r.offset() <= p.redeliveredUpTo) {
                rec.redelivered = true;
                rec.deliveries = p.redeliveryCount;
              } else {
                rec.deliveries = 1;
              }
              p.open.put(r.offset(), rec);
              openRecords++;
            }
          });
      changed.signalAll();
    } finally {
      lock.unlock();
    }
    return notOurs;
  }

  /**
   * Each partition's lowest unacknowledged offset where it moved since the last commit, with its
   * note; taken as committed (see {@link #commitFailed}).
   */
  Map<TopicPartition, OffsetAndMetadata> toCommit() {
    Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
    lock.lock();
    try {
      for (PartitionState p : parts.values()) {
        OffsetAndMetadata moved = p.commitIfMoved();
        if (moved != null) {
          offsets.put(p.tp, moved);
        }
      }
    } finally {
      lock.unlock();
    }
    return offsets;
  }

  /** An asynchronous commit of these partitions failed: the next {@link #toCommit} tries again. */
  void commitFailed(Collection<TopicPartition> tps) {
    lock.lock();
    try {
      for (TopicPartition tp : tps) {
        PartitionState p = parts.get(tp);
        if (p != null) {
          p.lastCommitted = -1;
        }
      }
    } finally {
      lock.unlock();
    }
  }

  /**
   * Stops handing out records of these partitions; if {@code commit}, waits up to {@code wait} for
   * the ones held by workers and returns what to commit, with a mark that flags redelivered only
   * what may still be in a worker's hands ({@link PartitionState#handoverMark}). Then forgets them:
   * a later acknowledgement is dropped.
   */
  Map<TopicPartition, OffsetAndMetadata> release(
      Collection<TopicPartition> tps, boolean commit, Duration wait) {
    List<PartitionState> leaving = new ArrayList<>();
    Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
    lock.lock();
    try {
      for (TopicPartition tp : tps) {
        PartitionState p = parts.get(tp);
        if (p != null) {
          p.revoking = true;
          leaving.add(p);
        }
      }
      if (commit) {
        awaitSettled(leaving, wait);
        for (PartitionState p : leaving) {
          OffsetAndMetadata handover = p.handover();
          if (handover != null) {
            offsets.put(p.tp, handover);
          }
        }
      }
      for (PartitionState p : leaving) {
        p.gone = true;
        openRecords -= p.open.size();
        parts.remove(p.tp);
      }
      changed.signalAll();
    } finally {
      lock.unlock();
    }
    return offsets;
  }

  private void awaitSettled(List<PartitionState> leaving, Duration wait) {
    long deadline = nanos.getAsLong() + wait.toNanos();
    while (leaving.stream().anyMatch(PartitionState::inFlight) && nanos.getAsLong() < deadline) {
      try {
        changed.awaitNanos(Math.min(deadline - nanos.getAsLong(), 50_000_000L));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }

  /** The consumer stops: waiting receivers return what they have. */
  void stop() {
    lock.lock();
    try {
      stopped = true;
      changed.signalAll();
    } finally {
      lock.unlock();
    }
  }

  // ---------------------------------------------------------------- the receivers' side

  /** Up to {@code max} records {@code r} may have now, waiting at most {@code wait}. */
  List<Delivery> poll(KafkaReceiver r, int max, Duration wait) throws InterruptedException {
    long deadline = nanos.getAsLong() + wait.toNanos();
    lock.lockInterruptibly();
    try {
      while (true) {
        long[] nextDue = {Long.MAX_VALUE};
        List<Delivery> got = take(r, max, nextDue);
        long now = nanos.getAsLong();
        if (!got.isEmpty() || now >= deadline || stopped || r.closed) {
          return got;
        }
        long until = Math.min(deadline, nextDue[0]);
        changed.awaitNanos(Math.max(1_000_000L, until - now));
      }
    } finally {
      lock.unlock();
    }
  }

  /**
   * Hands out to {@code r} what it may have, partitions in rotation. A key held by another
   * receiver, or waiting for its retry, blocks its later records; {@code nextDue} gets the earliest
   * retry still waiting.
   */
  private List<Delivery> take(KafkaReceiver r, int max, long[] nextDue) {
    List<Delivery> out = new ArrayList<>();
    List<PartitionState> order = new ArrayList<>(parts.values());
    if (order.isEmpty()) {
      return out;
    }
    int start = Math.floorMod(rotation.getAndIncrement(), order.size());
    long now = nanos.getAsLong();
    for (int i = 0; i < order.size() && out.size() < max; i++) {
      PartitionState p = order.get((start + i) % order.size());
      if (!p.revoking) {
        p.handOut(r, max, now, nextDue, out, inKeyOrder);
      }
    }
    return out;
  }

  /** Settles these deliveries of {@code r}: their records are done. */
  void ack(KafkaReceiver r, List<Delivery> deliveries) {
    lock.lock();
    try {
      for (Delivery d : deliveries) {
        OpenRecord rec = OpenRecord.takenBack(r, d);
        if (rec != null && rec.part.open.remove(rec.offset) != null) {
          openRecords--;
        }
      }
      changed.signalAll();
    } finally {
      lock.unlock();
    }
  }

  /** These deliveries come back, with their count + 1, after {@code delay} (at most the cap). */
  void nack(KafkaReceiver r, List<Delivery> deliveries, Duration delay) {
    Duration capped = delay.compareTo(maxNackDelay) > 0 ? maxNackDelay : delay;
    lock.lock();
    try {
      long due = nanos.getAsLong() + Math.max(0, capped.toNanos());
      for (Delivery d : deliveries) {
        OpenRecord rec = OpenRecord.takenBack(r, d);
        if (rec != null) {
          rec.delayed = true;
          rec.dueNanos = due;
          rec.deliveries++;
          rec.redelivered = true;
        }
      }
      changed.signalAll();
    } finally {
      lock.unlock();
    }
  }

  /** These deliveries of {@code r} come back unrun, at once, as they were before it took them. */
  void returnUnrun(KafkaReceiver r, List<Delivery> deliveries) {
    lock.lock();
    try {
      for (Delivery d : deliveries) {
        OpenRecord.takenBack(r, d);
      }
      changed.signalAll();
    } finally {
      lock.unlock();
    }
  }

  /** A receiver closed without settling: its records come back at once, as after a crash. */
  void closed(KafkaReceiver r) {
    lock.lock();
    try {
      for (OpenRecord rec : r.held) {
        if (rec.owner == r && !rec.part.gone) {
          rec.owner = null;
          rec.deliveries++;
          rec.redelivered = true;
        }
      }
      r.held.clear();
      changed.signalAll();
    } finally {
      lock.unlock();
    }
  }
}
