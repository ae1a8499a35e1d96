package dev.once.kafka.internal;

import dev.once.Event;
import dev.once.spi.Delivery;

/**
 * One polled record not yet acknowledged, and who holds it. Guarded by its {@link
 * PartitionLedger}'s lock; the handle of the deliveries made of it.
 */
final class OpenRecord {
  final PartitionState part;
  final long offset;
  final String key;
  final Event event;
  final String malformed;
  int deliveries;
  boolean redelivered;
  KafkaReceiver owner;
  boolean delayed;
  long dueNanos;

  OpenRecord(PartitionState part, long offset, Delivery decoded) {
    this.part = part;
    this.offset = offset;
    this.key = decoded.event().key();
    this.event = decoded.event();
    this.malformed = decoded.malformed();
  }

  Delivery delivery() {
    return new Delivery(event, deliveries, redelivered, this, malformed);
  }

  /**
   * The record of {@code d}, taken back from {@code r}; null if {@code r} does not hold it (its
   * partition was released meanwhile, or it was settled already): the next owner sees it again.
   */
  static OpenRecord takenBack(KafkaReceiver r, Delivery d) {
    OpenRecord rec = (OpenRecord) d.handle();
    if (rec.owner != r || rec.part.gone) {
      return null;
    }
    rec.owner = null;
    r.held.remove(rec);
    return rec;
  }
}
