package dev.once.kafka.internal;

import dev.once.spi.Delivery;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeMap;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * What this process knows of one assigned partition: its open records by offset, how far it was
 * fetched and handed out, the reservation mark in the committed note, and the redelivery round it
 * was taken over with. Replaced by a new object when the partition is assigned again. Guarded by
 * its {@link PartitionLedger}'s lock.
 */
final class PartitionState {
  /** Offsets reserved ahead in the committed note before records are handed out. */
  static final long RESERVE = 1000;

  final TopicPartition tp;
  final TreeMap<Long, OpenRecord> open = new TreeMap<>();
  long fetchedTo = -1;
  long reservedMark;
  long redeliveredUpTo = -1;
  int redeliveryCount;
  OffsetNote note;
  long lastCommitted;
  boolean revoking;
  boolean gone;

  PartitionState(TopicPartition tp, long committed, OffsetNote note) {
    this.tp = tp;
    this.note = note;
    this.lastCommitted = committed;
    this.reservedMark = note.mark();
  }

  /**
   * The state of a partition just assigned with {@code committed} (null: nothing committed yet). If
   * the committed note's mark is at or past the committed offset, the records from there to the
   * mark may have been handed out by the previous owner: they come back flagged redelivered, with
   * the round counted up while the committed offset stays.
   */
  static PartitionState assigned(TopicPartition tp, OffsetAndMetadata committed) {
    OffsetNote note = committed == null ? OffsetNote.NONE : OffsetNote.decode(committed.metadata());
    long at = committed == null ? -1 : committed.offset();
    PartitionState p = new PartitionState(tp, at, note);
    if (committed != null && note.mark() >= at) {
      int round = note.roundOffset() == at ? note.round() + 1 : 1;
      p.note = new OffsetNote(note.mark(), at, round);
      p.redeliveredUpTo = note.mark();
      p.redeliveryCount = round + 1;
    }
    return p;
  }

  /** Whether {@link #assigned} started a redelivery round, to be committed before hand-out. */
  boolean inRound() {
    return redeliveredUpTo >= 0;
  }

  /**
   * The note to commit before {@code records} are handed out if the last of them passes the
   * reserved mark — a mark {@link #RESERVE} offsets further, at the offset committed now — else
   * null.
   */
  OffsetAndMetadata reserve(List<PartitionLedger.Polled> records) {
    long last = records.get(records.size() - 1).offset();
    if (last <= reservedMark) {
      return null;
    }
    long at = committable() >= 0 ? committable() : records.get(0).offset();
    reservedMark = last + RESERVE;
    note = note.at(at, reservedMark);
    return withNote(at);
  }

  /**
   * The lowest unacknowledged offset with the note, taken as committed, if it moved since the last
   * commit; else null.
   */
  OffsetAndMetadata commitIfMoved() {
    long at = committable();
    if (at < 0 || at == lastCommitted) {
      return null;
    }
    note = note.at(at, reservedMark);
    lastCommitted = at;
    return withNote(at);
  }

  /** The committed offset with this partition's note, as it stands. */
  OffsetAndMetadata withNote(long offset) {
    return new OffsetAndMetadata(offset, note.encode());
  }

  /** The lowest offset not acknowledged, or -1 if nothing was polled yet. */
  long committable() {
    if (!open.isEmpty()) {
      return open.firstKey();
    }
    return fetchedTo;
  }

  /**
   * The lowest unacknowledged offset with the note of a clean handover ({@link #handoverMark}), or
   * null if nothing was polled.
   */
  OffsetAndMetadata handover() {
    long at = committable();
    if (at < 0) {
      return null;
    }
    note = note.at(at, handoverMark());
    return withNote(at);
  }

  /**
   * The mark a clean handover commits: the highest open record the next owner must still flag
   * redelivered — one still in a worker's hands (it may hang on it), or one this owner had flagged
   * and not settled — and nothing above. The records this owner handed out and got back crashed
   * nothing (it is alive and committing), so the next owner need not suspect them of having crashed
   * a batch; after a crash the reserved mark stays, and flags them all.
   */
  long handoverMark() {
    long mark = -1;
    for (OpenRecord r : open.values()) {
      if (r.owner != null || r.redelivered) {
        mark = Math.max(mark, r.offset);
      }
    }
    return mark;
  }

  /** Whether a worker holds one of its records now. */
  boolean inFlight() {
    for (OpenRecord r : open.values()) {
      if (r.owner != null) {
        return true;
      }
    }
    return false;
  }

  /**
   * Hands out to {@code r}, into {@code out} up to {@code max}, the records of this partition it
   * may have now. A key held by another receiver, or waiting for its retry, blocks its later
   * records; {@code nextDue[0]} gets the earliest retry still waiting. {@code inKeyOrder}: only a
   * key's earliest open record may be handed out, so a key's next record goes out only after the
   * one before it was acknowledged — not in the same batch, nor to the receiver that holds it.
   */
  void handOut(
      KafkaReceiver r, int max, long now, long[] nextDue, List<Delivery> out, boolean inKeyOrder) {
    Set<String> blocked = new HashSet<>();
    for (OpenRecord rec : open.values()) {
      if (out.size() >= max) {
        return;
      }
      String k = rec.key;
      if (k != null && blocked.contains(k)) {
        continue;
      }
      if (k != null && inKeyOrder) {
        blocked.add(k); // the key's earliest open record: whatever becomes of it, the rest wait
      }
      if (rec.owner != null) {
        if (rec.owner != r && k != null) {
          blocked.add(k); // the key is in another worker: its later records wait
        }
        continue;
      }
      if (rec.delayed && rec.dueNanos > now) {
        nextDue[0] = Math.min(nextDue[0], rec.dueNanos);
        if (k != null) {
          blocked.add(k); // waits for its retry; so do the key's later records
        }
        continue;
      }
      rec.delayed = false;
      rec.owner = r;
      r.held.add(rec);
      out.add(rec.delivery());
    }
  }
}
