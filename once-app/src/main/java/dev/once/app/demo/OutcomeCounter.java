package dev.once.app.demo;

import dev.once.OnceListener;
import dev.once.Outcome;
import dev.once.ReceivedEvent;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/** Counts outcomes per kind, for the report's information lines (the verdict reads the data). */
final class OutcomeCounter implements OnceListener {
  private final Map<Outcome, AtomicLong> counts = new EnumMap<>(Outcome.class);

  OutcomeCounter() {
    for (Outcome o : Outcome.values()) {
      counts.put(o, new AtomicLong());
    }
  }

  @Override
  public void outcome(ReceivedEvent event, Outcome outcome, Duration sinceReceived) {
    counts.get(outcome).incrementAndGet();
  }

  long get(Outcome outcome) {
    return counts.get(outcome).get();
  }
}
