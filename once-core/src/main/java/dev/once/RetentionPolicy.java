package dev.once;

import dev.once.spi.Validate;
import java.time.Duration;

/**
 * How long Once keeps what it no longer needs, and what it must keep. Build with {@link
 * #builder()}; {@link #DEFAULT} keeps markers 14 days against a 1-day redelivery and 7-day replay
 * horizon.
 *
 * <p>A marker is what makes a late delivery a {@code DUPLICATE}. Delete it while a delivery of its
 * event can still arrive — a redelivery from the broker, a relay republishing, a dead letter
 * replayed — and that delivery runs the business action a second time. So markers are kept at least
 * {@code redeliveryHorizon + replayHorizon}, and {@link Builder#build()} refuses less.
 *
 * @param markers age after which inbox markers are deleted
 * @param sentOutbox age after which sent outbox rows are deleted
 * @param resolvedDeadLetters age after which replayed or discarded dead letters are deleted
 * @param redeliveryHorizon the longest a delivery of an event can still arrive after the first:
 *     broker redelivery, retries with backoff, a relay republishing after a crash
 * @param replayHorizon the longest after dead-lettering a dead letter may still be replayed
 * @param batchSize rows deleted per statement (each its own short transaction)
 * @param interval time between two rounds of {@link Retention#start()}
 */
public record RetentionPolicy(
    Duration markers,
    Duration sentOutbox,
    Duration resolvedDeadLetters,
    Duration redeliveryHorizon,
    Duration replayHorizon,
    int batchSize,
    Duration interval) {

  public RetentionPolicy {
    Validate.positive("retention.markers", markers);
    Validate.positive("retention.sentOutbox", sentOutbox);
    Validate.positive("retention.resolvedDeadLetters", resolvedDeadLetters);
    Validate.positive("retention.redeliveryHorizon", redeliveryHorizon);
    Validate.positive("retention.replayHorizon", replayHorizon);
    Validate.range("retention.batchSize", batchSize, 1, 100_000);
    Validate.positive("retention.interval", interval);
    Duration horizon = redeliveryHorizon.plus(replayHorizon);
    if (markers.compareTo(horizon) < 0) {
      throw new ConfigurationException(
          "retention.markers",
          "must be at least retention.redeliveryHorizon + retention.replayHorizon ("
              + redeliveryHorizon
              + " + "
              + replayHorizon
              + " = "
              + horizon
              + "), was "
              + markers
              + ": a marker deleted while a delivery of its event can still arrive (a"
              + " redelivery, a republish, a replayed dead letter) lets that delivery run the"
              + " business action a second time");
    }
  }

  public static final RetentionPolicy DEFAULT = builder().build();

  public static Builder builder() {
    return new Builder();
  }

  /** The settings of a {@link RetentionPolicy}. */
  public static final class Builder {
    private Duration markers = Duration.ofDays(14);
    private Duration sentOutbox = Duration.ofDays(1);
    private Duration resolvedDeadLetters = Duration.ofDays(30);
    private Duration redeliveryHorizon = Duration.ofDays(1);
    private Duration replayHorizon = Duration.ofDays(7);
    private int batchSize = 1000;
    private Duration interval = Duration.ofMinutes(1);

    private Builder() {}

    public Builder markers(Duration markers) {
      this.markers = markers;
      return this;
    }

    public Builder sentOutbox(Duration sentOutbox) {
      this.sentOutbox = sentOutbox;
      return this;
    }

    public Builder resolvedDeadLetters(Duration resolvedDeadLetters) {
      this.resolvedDeadLetters = resolvedDeadLetters;
      return this;
    }

    public Builder redeliveryHorizon(Duration redeliveryHorizon) {
      this.redeliveryHorizon = redeliveryHorizon;
      return this;
    }

    public Builder replayHorizon(Duration replayHorizon) {
      this.replayHorizon = replayHorizon;
      return this;
    }

    public Builder batchSize(int batchSize) {
      this.batchSize = batchSize;
      return this;
    }

    public Builder interval(Duration interval) {
      this.interval = interval;
      return this;
    }

    public RetentionPolicy build() {
      return new RetentionPolicy(
          markers,
          sentOutbox,
          resolvedDeadLetters,
          redeliveryHorizon,
          replayHorizon,
          batchSize,
          interval);
    }
  }
}
