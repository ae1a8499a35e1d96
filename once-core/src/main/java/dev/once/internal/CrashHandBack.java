package dev.once.internal;

import dev.once.ConsumerConfig;
import dev.once.internal.Isolation.Group;
import dev.once.internal.Isolation.Plan;
import dev.once.spi.Delivery;
import dev.once.spi.Receiver;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a worker does with the deliveries it holds when an {@link Error} crashes it (see {@link
 * BatchProcessor}): the delivery whose handler threw it has the attempt counted and is returned
 * with the retry delay; the others are released unsuspected, or, if they were suspects that did not
 * commit, returned still flagged.
 */
final class CrashHandBack {
  private static final Logger log = LoggerFactory.getLogger(CrashHandBack.class);

  private final OnceImpl once;
  private final ConsumerConfig config;
  private final Attempts attempts;
  private final Isolation isolation;
  private final AtomicLong progress;

  /** {@code progress}: the processor's count of commits, one more for a counted attempt. */
  CrashHandBack(
      OnceImpl once,
      ConsumerConfig config,
      Attempts attempts,
      Isolation isolation,
      AtomicLong progress) {
    this.once = once;
    this.config = config;
    this.attempts = attempts;
    this.isolation = isolation;
    this.progress = progress;
  }

  /**
   * After an {@link Error} in group {@code left.get(0)}: counts the attempt of the delivery whose
   * run threw it ({@code culprit}, null if none: the Error came before or after the handlers),
   * returns it with the retry delay, and releases every other delivery still held, remembered as
   * what it was. {@code committed}: the first group's transaction committed before the Error. Best
   * effort: what cannot be handed back comes back when the receiver closes.
   */
  void handBack(
      Receiver receiver,
      Plan plan,
      List<Group> left,
      Delivery culprit,
      boolean committed,
      Error e) {
    isolation.remember(left, plan);
    if (committed) {
      left.get(0).members().forEach(isolation::rememberFresh);
    }
    Integer attempt = culprit == null || culprit.isMalformed() ? null : charge(culprit, plan, e);
    List<Delivery> fresh = new ArrayList<>();
    List<Delivery> suspects = new ArrayList<>();
    for (Group g : left) {
      for (Delivery d : g.members()) {
        if (d != culprit || attempt == null) {
          // a suspect keeps its flag for whoever gets it next; a fresh one is released unflagged
          (g.suspect() && !committed ? suspects : fresh).add(d);
        }
      }
    }
    try {
      if (attempt != null) {
        isolation.rememberFresh(culprit);
        receiver.nack(List.of(culprit), config.retry().delay(attempt));
      }
      if (!fresh.isEmpty()) {
        receiver.release(fresh);
      }
      if (!suspects.isEmpty()) {
        receiver.nack(suspects, Duration.ZERO);
      }
    } catch (RuntimeException failed) {
      log.debug(
          "consumer {}: handing back after a crash failed ({}); they come back anyway",
          config.consumerId(),
          failed.toString());
    }
  }

  /**
   * Counts the attempt of the delivery whose run threw {@code e}, in a short transaction, as a
   * crash does (the last real failure kept; the Error itself if there is none); returns its number,
   * or null if it could not be recorded (it then comes back suspect).
   */
  private Integer charge(Delivery culprit, Plan plan, Error e) {
    String id = culprit.event().id().value();
    Attempts.Known k = plan.known.get(id);
    Integer counted = plan.counted.get(id); // counted already: it ran alone
    int attempt = counted != null ? counted : k == null ? 1 : k.attempts() + 1;
    try {
      attempts.crashed(
          id,
          attempt,
          k,
          counted != null,
          Failure.of(e, culprit.event().payload()),
          once.config().clock().instant());
      progress.incrementAndGet();
      return attempt;
    } catch (RuntimeException failed) {
      log.debug(
          "consumer {}: the crash's attempt was not counted: {}", config.consumerId(), failed);
      return null;
    }
  }
}
