package dev.once.kafka.internal;

import dev.once.spi.Delivery;
import dev.once.spi.Receiver;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/** One worker's receiver: hands out, settles and gives back records through the ledger. */
final class KafkaReceiver implements Receiver {
  private final PartitionLedger ledger;
  private final Runnable onClose;

  /** The records this receiver holds; guarded by the ledger's lock. */
  final Set<OpenRecord> held = new LinkedHashSet<>();

  volatile boolean closed;

  /** {@code onClose}: run once, when this receiver closes. */
  KafkaReceiver(PartitionLedger ledger, Runnable onClose) {
    this.ledger = ledger;
    this.onClose = onClose;
  }

  @Override
  public List<Delivery> poll(int max, Duration wait) throws InterruptedException {
    if (closed) {
      throw new IllegalStateException("receiver closed");
    }
    return ledger.poll(this, max, wait);
  }

  @Override
  public void ack(List<Delivery> deliveries) {
    ledger.ack(this, deliveries);
  }

  @Override
  public void nack(List<Delivery> deliveries, Duration delay) {
    ledger.nack(this, deliveries, delay);
  }

  /**
   * Returns these deliveries unrun, as if they had not been handed out: not flagged redelivered,
   * their count kept. A clean handover then does not flag them for the next owner either.
   */
  @Override
  public void release(List<Delivery> deliveries) {
    ledger.returnUnrun(this, deliveries);
  }

  @Override
  public void close() {
    if (!closed) {
      closed = true;
      ledger.closed(this);
      onClose.run();
    }
  }
}
