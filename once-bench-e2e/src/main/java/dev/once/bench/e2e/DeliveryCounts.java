package dev.once.bench.e2e;

import dev.once.OnceListener;
import dev.once.Outcome;
import dev.once.ReceivedEvent;
import java.time.Duration;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What the consumers of one phase of {@code bench faults} were handed and what came of it: groups
 * run (one per transaction tried), deliveries in them, how many of those were redeliveries, and the
 * outcomes. A recovery that makes the broker hand the same work out again shows here as more
 * deliveries and redeliveries per order, where the throughput alone only says it was slower.
 */
final class DeliveryCounts implements OnceListener {
  private final AtomicLong groups = new AtomicLong();
  private final AtomicLong deliveries = new AtomicLong();
  private final AtomicLong redelivered = new AtomicLong();
  private final Map<Outcome, AtomicLong> outcomes = new EnumMap<>(Outcome.class);

  DeliveryCounts() {
    for (Outcome o : Outcome.values()) {
      outcomes.put(o, new AtomicLong());
    }
  }

  @Override
  public void received(List<ReceivedEvent> batch) {
    groups.incrementAndGet();
    deliveries.addAndGet(batch.size());
    long flagged = 0;
    for (ReceivedEvent e : batch) {
      if (e.redelivered()) {
        flagged++;
      }
    }
    redelivered.addAndGet(flagged);
  }

  @Override
  public void outcome(ReceivedEvent event, Outcome outcome, Duration sinceReceived) {
    outcomes.get(outcome).incrementAndGet();
  }

  /** The counts as a phase's JSON shows them. */
  Map<String, Object> json() {
    Map<String, Object> j = new LinkedHashMap<>();
    j.put("groups", groups.get());
    j.put("deliveries", deliveries.get());
    j.put("redelivered", redelivered.get());
    outcomes.forEach((o, n) -> j.put(o.name().toLowerCase(java.util.Locale.ROOT), n.get()));
    return j;
  }
}
