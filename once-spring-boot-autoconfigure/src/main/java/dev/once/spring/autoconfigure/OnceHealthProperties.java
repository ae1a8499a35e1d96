package dev.once.spring.autoconfigure;

import java.time.Duration;

/** The health indicator's thresholds, {@code once.health.*}. */
public class OnceHealthProperties {
  /**
   * Oldest waiting row (outbox, queue, retries) older than this: OUT_OF_SERVICE. Unset (the
   * default): never; the age is reported as a detail.
   */
  private Duration backlogAgeOutOfService;

  /** Oldest waiting row older than this: DOWN. Unset (the default): never. */
  private Duration backlogAgeDown;

  /**
   * Open dead letters at or above this count: DOWN. 0 (the default): never; the count is reported
   * as a detail.
   */
  private long deadLettersDown = 0;

  public Duration getBacklogAgeOutOfService() {
    return backlogAgeOutOfService;
  }

  public void setBacklogAgeOutOfService(Duration backlogAgeOutOfService) {
    this.backlogAgeOutOfService = backlogAgeOutOfService;
  }

  public Duration getBacklogAgeDown() {
    return backlogAgeDown;
  }

  public void setBacklogAgeDown(Duration backlogAgeDown) {
    this.backlogAgeDown = backlogAgeDown;
  }

  public long getDeadLettersDown() {
    return deadLettersDown;
  }

  public void setDeadLettersDown(long deadLettersDown) {
    this.deadLettersDown = deadLettersDown;
  }
}
