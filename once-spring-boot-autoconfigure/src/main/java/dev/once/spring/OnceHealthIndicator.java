package dev.once.spring;

import dev.once.WorkloadStatus;
import dev.once.WorkloadStatus.Backlog;
import dev.once.spring.autoconfigure.OnceProperties;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;

/**
 * Once's workload, read from the database, as the details of a health indicator: the oldest
 * backlog, its age, and the open dead letters per consumer. No payload is read.
 *
 * <p>By default it stays UP whatever the workload: dead letters and backlogs live in the database
 * that every instance shares, so a status made of them would take every instance out of the load
 * balancer together, over one poison message, and would not help drain anything. They are an alert
 * (see the metrics), not ill health. It turns DOWN only when configured to: when open dead letters
 * reach {@code once.health.dead-letters-down} (≥ 1) or the oldest waiting row is older than {@code
 * once.health.backlog-age-down}; OUT_OF_SERVICE when it is older than {@code
 * once.health.backlog-age-out-of-service}. It is never part of the liveness or readiness groups
 * (Boot puts only its own states there). It is DOWN, like any indicator, when the database cannot
 * be read.
 */
public class OnceHealthIndicator extends AbstractHealthIndicator {
  private final Supplier<WorkloadStatus> status;
  private final OnceProperties.Health thresholds;

  public OnceHealthIndicator(Supplier<WorkloadStatus> status, OnceProperties.Health thresholds) {
    super("Once health check failed");
    this.status = status;
    this.thresholds = thresholds;
  }

  @Override
  protected void doHealthCheck(Health.Builder builder) {
    WorkloadStatus s = status.get();
    Duration oldest = Duration.ZERO;
    String oldestName = null;
    for (Map.Entry<String, List<Backlog>> part :
        Map.of("outbox", s.outbox(), "queue", s.queue(), "retries", s.retries()).entrySet()) {
      for (Backlog b : part.getValue()) {
        if (b.waiting() > 0 && b.oldestAge().compareTo(oldest) > 0) {
          oldest = b.oldestAge();
          oldestName = part.getKey() + ":" + b.name();
        }
      }
    }
    Map<String, Long> dead = new LinkedHashMap<>();
    long deadTotal = 0;
    for (Backlog b : s.deadLetters()) {
      dead.put(b.name(), b.waiting());
      deadTotal += b.waiting();
    }
    builder.status(status(oldest, deadTotal));
    builder.withDetail("oldestBacklogAge", oldest.toString());
    if (oldestName != null) {
      builder.withDetail("oldestBacklog", oldestName);
    }
    builder.withDetail("deadLetters", deadTotal);
    builder.withDetail("deadLettersByConsumer", dead);
    Map<String, Object> limits = new LinkedHashMap<>();
    limits.put("backlogAgeOutOfService", orNever(thresholds.getBacklogAgeOutOfService()));
    limits.put("backlogAgeDown", orNever(thresholds.getBacklogAgeDown()));
    limits.put(
        "deadLettersDown",
        thresholds.getDeadLettersDown() > 0 ? thresholds.getDeadLettersDown() : "never");
    builder.withDetail("thresholds", limits);
  }

  private static String orNever(Duration d) {
    return d == null ? "never" : d.toString();
  }

  private Status status(Duration oldest, long deadLetters) {
    if (thresholds.getDeadLettersDown() > 0 && deadLetters >= thresholds.getDeadLettersDown()) {
      return Status.DOWN;
    }
    if (olderThan(oldest, thresholds.getBacklogAgeDown())) {
      return Status.DOWN;
    }
    if (olderThan(oldest, thresholds.getBacklogAgeOutOfService())) {
      return Status.OUT_OF_SERVICE;
    }
    return Status.UP;
  }

  private static boolean olderThan(Duration age, Duration threshold) {
    return threshold != null && age.compareTo(threshold) > 0;
  }
}
