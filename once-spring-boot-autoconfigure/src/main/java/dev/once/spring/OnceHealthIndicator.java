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
 * Once's health from its workload, read from the database: DOWN when open dead letters reach {@code
 * once.health.dead-letters-down} or the oldest waiting row (outbox, queue, retries) is older than
 * {@code once.health.backlog-age-down}; OUT_OF_SERVICE when it is older than {@code
 * once.health.backlog-age-out-of-service}; UP otherwise. Details name the oldest backlog, its age,
 * and the dead letters per consumer. No payload is read.
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
    builder.withDetail(
        "thresholds",
        Map.of(
            "backlogAgeOutOfService", thresholds.getBacklogAgeOutOfService().toString(),
            "backlogAgeDown", thresholds.getBacklogAgeDown().toString(),
            "deadLettersDown", thresholds.getDeadLettersDown()));
  }

  private Status status(Duration oldest, long deadLetters) {
    if (thresholds.getDeadLettersDown() > 0 && deadLetters >= thresholds.getDeadLettersDown()) {
      return Status.DOWN;
    }
    if (oldest.compareTo(thresholds.getBacklogAgeDown()) > 0) {
      return Status.DOWN;
    }
    if (oldest.compareTo(thresholds.getBacklogAgeOutOfService()) > 0) {
      return Status.OUT_OF_SERVICE;
    }
    return Status.UP;
  }
}
