package dev.once.internal.consumer;

import dev.once.ConsumerConfig;
import dev.once.Outcome;
import dev.once.ReceivedEvent;
import dev.once.Tracing;
import dev.once.internal.Failure;
import dev.once.internal.Spans;
import dev.once.internal.consumer.GroupTransaction.Batch;
import dev.once.internal.consumer.GroupTransaction.DeliveryCrashed;
import dev.once.spi.Delivery;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One batch, in the order it happens: receive, plan ({@link Isolation}: fresh deliveries in one
 * group, redeliveries that may have crashed their process in groups of suspects), run each group in
 * a transaction of its own ({@link GroupTransaction}), record the failures in a short transaction,
 * settle ({@link Settlement}: acknowledged — processed, duplicate, stale, dead-lettered — or
 * returned with a backoff). Every step's result is a value; the batch's is a {@link BatchOutcome}.
 *
 * <p>An {@link Error} crashes the worker, but first the deliveries it holds are handed back: the
 * one whose run threw it with its attempt counted, the others as what they were.
 */
final class Pipeline {
  private static final Logger log = LoggerFactory.getLogger(Pipeline.class);

  private final ConsumerContext context;
  private final ConsumerConfig config;
  private final Attempts attempts;
  private final Isolation isolation;
  private final GroupTransaction transaction;
  private final AtomicLong progress = new AtomicLong();

  /** Null: none (see {@link Lane#of}). */
  private final Lane lane;

  Pipeline(ConsumerContext context, ConsumerConfig config, Lane lane) {
    this.context = context;
    this.lane = lane;
    this.config = config;
    this.attempts = new Attempts(context.dataSource(), context.dialect(), config.consumerId());
    this.isolation = new Isolation(context, config, attempts, new Returns());
    this.transaction =
        new GroupTransaction(context, config, new DeliveryRunner(context, config, attempts));
  }

  /**
   * Commits made so far: batches, recorded failures, raised suspects, counted crashes. An {@link
   * Error} with none since the previous one is a worker that gets nowhere (see {@link Worker}).
   */
  long progress() {
    return progress.get();
  }

  /** Polls a batch and handles it. */
  BatchOutcome receive(Settlement settlement) throws InterruptedException {
    List<Delivery> polled;
    try {
      polled = settlement.poll();
    } catch (RuntimeException | Error e) {
      return BatchOutcome.failed(e, List.of());
    }
    if (polled.isEmpty()) {
      isolation.sweep();
      return BatchOutcome.NONE;
    }
    return run(settlement, polled).polled(polled.size());
  }

  /** Handles {@code held}: deliveries just polled, or kept from a batch a database outage ended. */
  BatchOutcome run(Settlement settlement, List<Delivery> held) {
    List<Delivery> now;
    try {
      now = lane == null ? held : lane.divert(settlement, held);
    } catch (RuntimeException | Error e) {
      return BatchOutcome.failed(e, held);
    }
    if (now.size() < held.size()) {
      progress.incrementAndGet(); // diverted into the key lane (or a dead head acknowledged)
    }
    if (now.isEmpty()) {
      return BatchOutcome.done(held.size());
    }
    Plan plan;
    try {
      plan = isolation.plan(now, settlement::cameBackCleanly);
    } catch (RuntimeException | Error e) {
      return BatchOutcome.failed(e, now);
    }
    for (int i = 0; i < plan.groups.size(); i++) {
      GroupEnd end = runGroup(settlement, plan, plan.groups.get(i));
      if (end != GroupEnd.SETTLED) {
        return afterFailure(settlement, plan, i, end);
      }
    }
    return BatchOutcome.done(held.size());
  }

  /** How far a group got before a failure ended it. */
  enum Stage {
    BEFORE_COMMIT,
    COMMITTED,
    SETTLING
  }

  /**
   * How a group's run ended: settled, or {@code failure} at {@code stage}; {@code culprit} is the
   * delivery whose run threw an {@link Error}, if it was one.
   */
  record GroupEnd(Stage stage, Delivery culprit, Throwable failure) {
    static final GroupEnd SETTLED = new GroupEnd(null, null, null);
  }

  /** One group's run: its events as the listener and the spans see them. */
  private GroupEnd runGroup(Settlement settlement, Plan plan, Group g) {
    GroupRun run;
    GroupTransaction.Result result;
    try {
      if (isolation.prepare(g, plan)) {
        progress.incrementAndGet();
      }
      run = GroupRun.start(context, config, g);
    } catch (RuntimeException | Error e) {
      return new GroupEnd(Stage.BEFORE_COMMIT, null, e);
    }
    try {
      result = transaction.commit(new Batch(g, run.events(), plan, run.spans(), settlement));
    } catch (DeliveryCrashed e) {
      return run.failed(new GroupEnd(Stage.BEFORE_COMMIT, e.delivery, e.getCause()));
    } catch (RuntimeException | Error e) {
      return run.failed(new GroupEnd(Stage.BEFORE_COMMIT, null, e));
    }
    return result.conflict()
        ? conflicted(settlement, plan, g, run)
        : committed(settlement, plan, run, result.handled());
  }

  /** A transient conflict rolled the group back: all of it comes back soon, as it was. */
  private GroupEnd conflicted(Settlement settlement, Plan plan, Group g, GroupRun run) {
    try {
      isolation.remember(List.of(g), plan);
      settlement.returnSoon(g.members());
      run.endAll(Outcome.RETRY);
      return GroupEnd.SETTLED;
    } catch (RuntimeException | Error e) {
      return run.failed(new GroupEnd(Stage.BEFORE_COMMIT, null, e));
    }
  }

  private GroupEnd committed(
      Settlement settlement, Plan plan, GroupRun run, List<HandledDelivery> handled) {
    progress.incrementAndGet();
    try {
      context.listener().committed(run.events());
    } catch (RuntimeException | Error e) {
      return run.failed(new GroupEnd(Stage.COMMITTED, null, e));
    }
    try {
      recordFailures(handled, plan);
      settle(settlement, run, handled);
      return GroupEnd.SETTLED;
    } catch (RuntimeException | Error e) {
      return run.failed(new GroupEnd(Stage.SETTLING, null, e));
    }
  }

  /**
   * Records the retries' failures in a short transaction, with {@link Plan#started}: the known
   * attempts of the deliveries whose attempt was counted before their run (they ran alone), whose
   * count already includes it. Nothing allocated for a group without retries.
   */
  private void recordFailures(List<HandledDelivery> handled, Plan plan) {
    Map<String, Failure> failures = null;
    Map<String, Integer> attemptOf = null;
    for (HandledDelivery h : handled) {
      if (h.outcome() == Outcome.RETRY) {
        if (failures == null) {
          failures = new LinkedHashMap<>();
          attemptOf = new LinkedHashMap<>();
        }
        failures.put(h.eventId(), h.failure());
        attemptOf.put(h.eventId(), h.attempt());
      }
    }
    if (failures != null) {
      attempts.record(failures, attemptOf, plan.started(), context.clock().instant());
      progress.incrementAndGet();
    }
  }

  private void settle(Settlement settlement, GroupRun run, List<HandledDelivery> handled) {
    for (HandledDelivery h : handled) {
      if (h.outcome() == Outcome.RETRY) {
        isolation.rememberFresh(h.delivery()); // it failed, known: not a suspect when it is back
      }
    }
    settlement.settle(handled);
    Duration took = Duration.ofNanos(System.nanoTime() - run.started());
    for (int i = 0; i < handled.size(); i++) {
      HandledDelivery h = handled.get(i);
      context.listener().outcome(h.event(), h.outcome(), took);
      run.end(i, h);
    }
  }

  /**
   * After group {@code i} ended with a failure. A crash hands back every delivery from that group
   * on (from the next one if the group was being settled); any other failure leaves them unsettled,
   * remembered as what they were, for the worker to keep or to hand back by closing its receiver.
   */
  private BatchOutcome afterFailure(Settlement settlement, Plan plan, int i, GroupEnd end) {
    List<Group> groups = plan.groups;
    if (end.failure() instanceof Error crash) {
      List<Group> left = groups.subList(end.stage() == Stage.SETTLING ? i + 1 : i, groups.size());
      if (!left.isEmpty()) {
        handBack(settlement, plan, left, end, crash);
      }
      return BatchOutcome.failed(crash, List.of());
    }
    isolation.remember(
        groups.subList(end.stage() == Stage.BEFORE_COMMIT ? i : i + 1, groups.size()), plan);
    if (end.stage() != Stage.BEFORE_COMMIT) {
      groups.get(i).members().forEach(isolation::rememberFresh);
    }
    List<Delivery> unsettled = new ArrayList<>();
    groups.subList(i, groups.size()).forEach(g -> unsettled.addAll(g.members()));
    return BatchOutcome.failed(end.failure(), unsettled);
  }

  /**
   * After an {@link Error} in group {@code left.get(0)}: counts the attempt of the delivery whose
   * run threw it (the culprit, if any), returns it with the retry delay, and hands back every other
   * delivery still held, remembered as what it was: released unflagged, or, a suspect that did not
   * commit, returned still flagged.
   */
  private void handBack(Settlement settlement, Plan plan, List<Group> left, GroupEnd end, Error e) {
    boolean committed = end.stage() == Stage.COMMITTED;
    isolation.remember(left, plan);
    if (committed) {
      left.get(0).members().forEach(isolation::rememberFresh);
    }
    Delivery culprit = end.culprit();
    Integer attempt = culprit == null || culprit.isMalformed() ? null : charge(culprit, plan, e);
    List<Delivery> fresh = new ArrayList<>();
    List<Delivery> suspects = new ArrayList<>();
    for (Group g : left) {
      for (Delivery d : g.members()) {
        if (d != culprit || attempt == null) {
          (g.suspect() && !committed ? suspects : fresh).add(d);
        }
      }
    }
    if (attempt != null) {
      isolation.rememberFresh(culprit);
    }
    settlement.handBack(
        attempt == null ? null : culprit, attempt == null ? 0 : attempt, fresh, suspects);
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
      Failure failure = Failure.of(e, culprit.event().payload());
      attempts.crashed(id, attempt, k, counted != null, failure, context.clock().instant());
      progress.incrementAndGet();
      return attempt;
    } catch (RuntimeException failed) {
      log.debug(
          "consumer {}: the crash's attempt was not counted: {}", config.consumerId(), failed);
      return null;
    }
  }

  /**
   * A group's events as the listener and the tracing hook see them, one span per delivery attempt
   * (null when tracing is off: nothing allocated), and when it was received.
   */
  record GroupRun(List<ReceivedEvent> events, Tracing.Span[] spans, long started) {
    static GroupRun start(ConsumerContext context, ConsumerConfig config, Group g) {
      long started = System.nanoTime();
      List<ReceivedEvent> events = new ArrayList<>(g.members().size());
      for (Delivery d : g.members()) {
        events.add(
            new ReceivedEvent(config.consumerId(), d.event(), d.deliveryCount(), d.redelivered()));
      }
      context.listener().received(events);
      Tracing.Span[] spans =
          Spans.start(context.tracing(), context.transport(), events, Tracing::process);
      return new GroupRun(events, spans, started);
    }

    /**
     * Ends delivery {@code i}'s span with its outcome; a handler's failure also as the span's error
     * ({@code error.type}, error status).
     */
    void end(int i, HandledDelivery h) {
      if (spans != null && spans[i] != null) {
        if (h.error() != null) {
          spans[i].error(h.error());
        }
        spans[i].outcome(h.outcome());
        spans[i].end();
        spans[i] = null;
      }
    }

    void endAll(Outcome outcome) {
      for (int i = 0; spans != null && i < spans.length; i++) {
        if (spans[i] != null) {
          spans[i].outcome(outcome);
          spans[i].end();
          spans[i] = null;
        }
      }
    }

    /** Ends the spans still open with the failure that ended the group; returns {@code end}. */
    GroupEnd failed(GroupEnd end) {
      for (int i = 0; spans != null && i < spans.length; i++) {
        if (spans[i] != null) {
          spans[i].error(end.failure());
          spans[i].end();
          spans[i] = null;
        }
      }
      return end;
    }
  }
}
