package dev.once.bench.e2e;

import dev.once.Event;
import dev.once.OnceListener;
import dev.once.Outcome;
import dev.once.ReceivedEvent;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Hears the pipeline: when a producer's transaction committed an event, when the bench consumer's
 * transaction committed its effect, and how many deliveries ended PROCESSED or DUPLICATE. Both
 * times are taken right after the commit returned, on the committing thread.
 */
final class Timings implements OnceListener {
  private final Map<String, Long> producerCommit = new ConcurrentHashMap<>();
  private final Map<String, Long> published = new ConcurrentHashMap<>();
  private final Map<String, Long> consumerCommit = new ConcurrentHashMap<>();
  private final AtomicLong processed = new AtomicLong();
  private final AtomicLong duplicates = new AtomicLong();
  private volatile boolean recording;

  /** Start (or stop) keeping per-event commit times; counting goes on regardless. */
  void recording(boolean on) {
    recording = on;
  }

  @Override
  public void producerCommitted(List<Event> events) {
    if (recording) {
      long now = System.nanoTime();
      for (Event e : events) {
        producerCommit.put(e.id().value(), now);
      }
    }
  }

  @Override
  public void published(List<Event> events) {
    if (recording) {
      long now = System.nanoTime();
      for (Event e : events) {
        published.putIfAbsent(e.id().value(), now);
      }
    }
  }

  @Override
  public void committed(List<ReceivedEvent> events) {
    if (recording) {
      long now = System.nanoTime();
      for (ReceivedEvent e : events) {
        if (e.consumerId().equals(BenchTables.CONSUMER)) {
          consumerCommit.putIfAbsent(e.id().value(), now);
        }
      }
    }
  }

  @Override
  public void outcome(ReceivedEvent event, Outcome outcome, Duration sinceReceived) {
    if (outcome == Outcome.PROCESSED) {
      processed.incrementAndGet();
    } else if (outcome == Outcome.DUPLICATE) {
      duplicates.incrementAndGet();
    }
  }

  long processed() {
    return processed.get();
  }

  long duplicates() {
    return duplicates.get();
  }

  /** Commit→consumed latencies in nanoseconds of every event seen at both ends. */
  long[] latencies() {
    return between(producerCommit, consumerCommit);
  }

  /** Producer commit → broker confirmed (the relay's share of the latency). */
  long[] relayLatencies() {
    return between(producerCommit, published);
  }

  private static long[] between(Map<String, Long> from, Map<String, Long> to) {
    return from.entrySet().stream()
        .filter(e -> to.containsKey(e.getKey()))
        .mapToLong(e -> to.get(e.getKey()) - e.getValue())
        .sorted()
        .toArray();
  }
}
