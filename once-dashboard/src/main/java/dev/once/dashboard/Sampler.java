package dev.once.dashboard;

import dev.once.ConsumerActivity;
import dev.once.Outcome;
import dev.once.WorkloadStatus;
import dev.once.WorkloadStatus.Backlog;
import dev.once.jdbc.Dialect;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import javax.sql.DataSource;

/**
 * Reads the workload every interval and keeps the last minutes of per-consumer points: waiting,
 * oldest pending age, and arrival / completion / retry / duplicate / dead rates per second.
 *
 * <p>Rates come from the dashboard's listener when it runs in the consumers' process (exact,
 * duplicates included), otherwise from the rows consumers leave behind ({@link ConsumerActivity};
 * no duplicates). Arrival is what left the queue plus what the queue grew by: {@code completed +
 * duplicates + dead + Δwaiting} — exact on the table queue; on a broker whose depth Once does not
 * read it equals what was finished.
 */
final class Sampler {
  /** Marker times are their transaction's start: read windows that ended this long ago. */
  static final Duration LAG = Duration.ofSeconds(1);

  /** One consumer at one sample; a null rate is one this source cannot know. */
  record Point(
      long waiting,
      double oldestSeconds,
      long retryWaiting,
      long deadOpen,
      double arrival,
      double completion,
      double retry,
      Double duplicate,
      double dead) {}

  record Sample(Instant at, double seconds, Map<String, Point> consumers, WorkloadStatus status) {}

  private final DataSource dataSource;
  private final Dialect dialect;
  private final Clock clock;
  private final DashboardListener counts;
  private final int keep;
  private final Deque<Sample> samples = new ArrayDeque<>();
  private Instant windowEnd;
  private Instant lastAt;
  private Map<String, Long> lastWaiting = Map.of();
  private Map<String, Map<Outcome, Long>> lastCounts = Map.of();
  private final Set<String> seen = new TreeSet<>();

  Sampler(
      DataSource dataSource,
      Dialect dialect,
      Clock clock,
      DashboardListener counts,
      Duration every,
      Duration history) {
    this.dataSource = dataSource;
    this.dialect = dialect;
    this.clock = clock;
    this.counts = counts;
    this.keep = (int) Math.max(2, history.toMillis() / Math.max(1, every.toMillis()));
  }

  /** Takes one sample now. */
  synchronized Sample sample() {
    Instant now = clock.instant();
    WorkloadStatus status = WorkloadStatus.read(dataSource, dialect, now);
    Instant to = now.minus(LAG);
    Instant from = windowEnd == null ? to.minusSeconds(2) : windowEnd;
    ConsumerActivity activity = ConsumerActivity.read(dataSource, dialect, from, to);
    windowEnd = to;
    double seconds =
        Math.max(0.001, Duration.between(lastAt == null ? from : lastAt, now).toMillis() / 1000.0);
    boolean exact = counts.heard();
    Map<String, Map<Outcome, Long>> outcomes = exact ? counts.snapshot() : Map.of();
    Map<String, Point> points = new TreeMap<>();
    Map<String, Long> waitingNow = new HashMap<>();
    for (String name : names(status, activity, outcomes)) {
      Backlog queue = find(status.queue(), name);
      Backlog retries = find(status.retries(), name);
      Backlog dead = find(status.deadLetters(), name);
      long waiting = queue == null ? 0 : queue.waiting();
      waitingNow.put(name, waiting);
      double oldest =
          Math.max(age(queue), age(retries)); // a retry waits as long as its first failure
      double completion;
      double retry;
      Double duplicate;
      double deadRate;
      if (exact) {
        completion =
            delta(outcomes, name, Outcome.PROCESSED) + delta(outcomes, name, Outcome.STALE);
        retry = delta(outcomes, name, Outcome.RETRY);
        duplicate = (double) delta(outcomes, name, Outcome.DUPLICATE);
        deadRate = delta(outcomes, name, Outcome.DEAD);
      } else {
        ConsumerActivity.Counts c =
            activity.counts().getOrDefault(name, new ConsumerActivity.Counts(0, 0, 0));
        completion = c.completed();
        retry = c.retried();
        duplicate = null;
        deadRate = c.dead();
      }
      long grew = lastAt == null ? 0 : waiting - lastWaiting.getOrDefault(name, waiting);
      double arrival =
          Math.max(0, grew + completion + deadRate + (duplicate == null ? 0 : duplicate));
      points.put(
          name,
          new Point(
              waiting,
              oldest,
              retries == null ? 0 : retries.waiting(),
              dead == null ? 0 : dead.waiting(),
              arrival / seconds,
              completion / seconds,
              retry / seconds,
              duplicate == null ? null : duplicate / seconds,
              deadRate / seconds));
    }
    lastAt = now;
    lastWaiting = waitingNow;
    lastCounts = outcomes;
    Sample s = new Sample(now, seconds, points, status);
    samples.addLast(s);
    while (samples.size() > keep) {
      samples.removeFirst();
    }
    return s;
  }

  /** The samples taken at or after {@code since}, oldest first. */
  synchronized List<Sample> since(Instant since) {
    List<Sample> out = new ArrayList<>();
    for (Sample s : samples) {
      if (!s.at().isBefore(since)) {
        out.add(s);
      }
    }
    return out;
  }

  synchronized int size() {
    return samples.size();
  }

  synchronized Sample latest() {
    return samples.peekLast();
  }

  boolean exact() {
    return counts.heard();
  }

  private long delta(Map<String, Map<Outcome, Long>> now, String name, Outcome o) {
    long current = now.getOrDefault(name, Map.of()).getOrDefault(o, 0L);
    long before = lastCounts.getOrDefault(name, Map.of()).getOrDefault(o, 0L);
    return Math.max(0, current - before);
  }

  private Set<String> names(
      WorkloadStatus s, ConsumerActivity a, Map<String, Map<Outcome, Long>> outcomes) {
    Set<String> names = new TreeSet<>();
    s.queue().forEach(b -> names.add(b.name()));
    s.retries().forEach(b -> names.add(b.name()));
    s.deadLetters().forEach(b -> names.add(b.name()));
    names.addAll(a.counts().keySet());
    names.addAll(outcomes.keySet());
    seen.addAll(names); // a consumer that went quiet stays listed, with zeros
    return new TreeSet<>(seen);
  }

  private static Backlog find(List<Backlog> rows, String name) {
    for (Backlog b : rows) {
      if (b.name().equals(name)) {
        return b;
      }
    }
    return null;
  }

  private static double age(Backlog b) {
    return b == null ? 0 : b.oldestAge().toMillis() / 1000.0;
  }
}
