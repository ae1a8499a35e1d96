package dev.once.app.proof;

import dev.once.OnceListener;
import dev.once.Outcome;
import dev.once.ReceivedEvent;
import java.io.PrintStream;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Counts, in one worker process, deliveries received, those the transport marked as redelivered,
 * and outcomes. Printed as {@code stats <received> <redelivered> <processed> <duplicate>} lines,
 * which {@code once verify} reads. A process killed between two prints loses the counts since the
 * last one: the totals are lower bounds.
 */
final class WorkerStats implements OnceListener {
  static final String PREFIX = "stats ";

  private final AtomicLong received = new AtomicLong();
  private final AtomicLong redelivered = new AtomicLong();
  private final AtomicLong processed = new AtomicLong();
  private final AtomicLong duplicate = new AtomicLong();

  @Override
  public void received(List<ReceivedEvent> batch) {
    received.addAndGet(batch.size());
    redelivered.addAndGet(
        batch.stream().filter(e -> e.redelivered() || e.deliveryCount() > 1).count());
  }

  @Override
  public void outcome(ReceivedEvent event, Outcome outcome, Duration sinceReceived) {
    if (outcome == Outcome.PROCESSED) {
      processed.incrementAndGet();
    } else if (outcome == Outcome.DUPLICATE) {
      duplicate.incrementAndGet();
    }
  }

  String line() {
    return PREFIX
        + received.get()
        + " "
        + redelivered.get()
        + " "
        + processed.get()
        + " "
        + duplicate.get();
  }

  String summary() {
    return received.get()
        + " deliveries received ("
        + redelivered.get()
        + " redelivered), "
        + processed.get()
        + " processed, "
        + duplicate.get()
        + " duplicates suppressed";
  }

  /** Prints a line every {@code every} when the counts changed, on a daemon thread. */
  void printEvery(Duration every, PrintStream out) {
    Thread t =
        new Thread(
            () -> {
              String last = "";
              while (true) {
                String now = line();
                if (!now.equals(last)) {
                  out.println(now);
                  out.flush();
                  last = now;
                }
                try {
                  Thread.sleep(every.toMillis());
                } catch (InterruptedException e) {
                  return;
                }
              }
            },
            "once-stats");
    t.setDaemon(true);
    t.start();
  }

  /** Parses a stats line into {received, redelivered, processed, duplicate}; null if not one. */
  static long[] parse(String line) {
    if (!line.startsWith(PREFIX)) {
      return null;
    }
    String[] parts = line.substring(PREFIX.length()).trim().split(" ");
    long[] values = new long[4];
    for (int i = 0; i < 4; i++) {
      values[i] = Long.parseLong(parts[i]);
    }
    return values;
  }
}
