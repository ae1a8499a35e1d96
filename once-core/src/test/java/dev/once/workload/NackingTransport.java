package dev.once.workload;

import dev.once.Event;
import dev.once.spi.ForwardingTransport;
import dev.once.spi.PublishResult;
import dev.once.spi.Transport;
import java.time.Duration;
import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A broker that refuses (nacks) every event to one destination while {@link #refusing}, as a broker
 * refuses a message it will not store: a refusal the relay charges, unlike a destination that no
 * consumer is bound to yet, which waits uncharged.
 */
final class NackingTransport extends ForwardingTransport {
  static final String REFUSAL = "nacked by the broker (not stored)";
  private final String destination;
  volatile boolean refusing = true;

  NackingTransport(Transport delegate, String destination) {
    super(delegate);
    this.destination = destination;
  }

  @Override
  public PublishResult publish(List<Event> batch, Duration confirmTimeout) {
    PublishResult r = super.publish(batch, confirmTimeout);
    if (!refusing) {
      return r;
    }
    BitSet confirmed = r.confirmed();
    BitSet unroutable = r.unroutable();
    Map<Integer, String> failures = new HashMap<>(r.failures());
    for (int i = 0; i < batch.size(); i++) {
      if (batch.get(i).destination().equals(destination)) {
        confirmed.clear(i);
        unroutable.clear(i);
        failures.put(i, REFUSAL);
      }
    }
    return new PublishResult(confirmed, failures, r.lost(), unroutable);
  }
}
