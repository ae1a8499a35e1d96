package dev.once.dashboard;

import dev.once.OnceListener;
import dev.once.Outcome;
import dev.once.ReceivedEvent;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * Counts each consumer's outcomes in this process: the exact figures for the dashboard's rates,
 * duplicates included. Give the same instance to the consumers' {@code Once} and to {@link
 * Dashboard.Builder#listener}; without it the rates come from the rows in the database.
 */
public final class DashboardListener implements OnceListener {
  private final Map<String, Map<Outcome, LongAdder>> counts = new ConcurrentHashMap<>();
  private volatile boolean heard;

  @Override
  public void outcome(ReceivedEvent event, Outcome outcome, Duration sinceReceived) {
    heard = true;
    counts
        .computeIfAbsent(event.consumerId(), c -> new ConcurrentHashMap<>())
        .computeIfAbsent(outcome, o -> new LongAdder())
        .increment();
  }

  /** Whether the listener was installed and heard anything. */
  boolean heard() {
    return heard;
  }

  /** Consumer → outcome → count so far. */
  Map<String, Map<Outcome, Long>> snapshot() {
    Map<String, Map<Outcome, Long>> out = new TreeMap<>();
    counts.forEach(
        (consumer, byOutcome) -> {
          Map<Outcome, Long> m = new TreeMap<>();
          byOutcome.forEach((o, n) -> m.put(o, n.sum()));
          out.put(consumer, m);
        });
    return out;
  }
}
