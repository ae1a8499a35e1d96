package dev.once.internal.consumer;

import dev.once.ConsumerConfig;
import dev.once.StoreException;
import dev.once.internal.Conflicts;
import dev.once.internal.Jdbc;
import dev.once.internal.consumer.Returns.Resume;
import dev.once.jdbc.FailedAttempt;
import dev.once.spi.Delivery;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;
import java.util.function.ToIntFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The planner of a batch: finds a poison that kills the process by bisection, without charging the
 * innocents of its batch. It is told what came back (the deliveries, and for a flagged one whether
 * its transport knows it came back cleanly) and what the pipeline handed back or kept ({@link
 * #remember}, {@link #rememberFresh}); it touches no delivery itself.
 *
 * <p>A delivery that comes back flagged redelivered, when neither this consumer ({@link Returns})
 * nor its transport ({@code Receiver.cameBackCleanly}) knows why, may have been in a batch that
 * crashed its process. It is a <em>suspect</em> of level 0. Suspects of level {@code L} run in
 * groups of {@code batchSize >> L} (the whole batch again at level 0); before a group runs, its
 * members' level is raised to {@code L + 1} (or more for a small group, see {@link #raisedLevel})
 * in one commit ({@code once_suspect}), and the group's own transaction deletes those rows when it
 * commits. A group that crashes the process again comes back at that level, in groups half as
 * large: a poison in a batch of 32 runs alone after five more crashes, and the innocents of each
 * half that did not crash are processed on the way. Only a crash while the event runs alone counts
 * as an attempt toward {@code maxAttempts}, in the same commit as the raise.
 *
 * <p>The least suspect run first (fresh deliveries, then by level), but a delivery never runs
 * before an earlier one of its key in the same poll: it takes the higher level of the two.
 */
final class Isolation {
  private static final Logger log = LoggerFactory.getLogger(Isolation.class);

  /** How often an idle consumer looks for attempt and suspicion rows left by processed events. */
  static final long SWEEP_EVERY_NANOS = TimeUnit.SECONDS.toNanos(5);

  private final ConsumerContext context;
  private final ConsumerConfig config;
  private final Attempts attempts;
  private final Returns returns;
  private final AtomicLong lastSweep = new AtomicLong(System.nanoTime() - SWEEP_EVERY_NANOS);

  Isolation(ConsumerContext context, ConsumerConfig config, Attempts attempts, Returns returns) {
    this.context = context;
    this.config = config;
    this.attempts = attempts;
    this.returns = returns;
  }

  /**
   * The size of the groups of suspects of {@code level}: the whole batch again at level 0 (one
   * crash is no evidence), then {@code batchSize >> level}.
   */
  static int groupSize(int batchSize, int level) {
    return level >= Integer.SIZE - 1 ? 1 : Math.max(1, batchSize >> level);
  }

  /**
   * The level a group of {@code size} suspects of {@code level} is raised to before it runs: one
   * more, or more still for a group smaller than its level allows, so that if it crashes its
   * members come back in groups of half its size (a crashed group of three is not tried as three
   * again).
   */
  static int raisedLevel(int batchSize, int level, int size) {
    int half = (size + 1) / 2;
    int raised = level + 1;
    while (groupSize(batchSize, raised) > half) {
      raised++;
    }
    return raised;
  }

  /**
   * Reads what is known of the redelivered ones among {@code held} (recorded failures, suspicion
   * levels: one connection, two queries, none for a poll without redeliveries) and groups them.
   * {@code cameBackCleanly}: what the transport knows of a flagged delivery's return (asked only of
   * one this consumer knows nothing of: the answer may be used up).
   */
  Plan plan(List<Delivery> held, Predicate<Delivery> cameBackCleanly) {
    Map<String, Resume> resumed = takeResumed(held);
    Map<String, Attempts.Known> known = new HashMap<>();
    Map<String, Integer> stored = new HashMap<>();
    read(idsToRead(held, resumed), known, stored);
    Map<String, Integer> counted = new HashMap<>();
    resumed.forEach(
        (id, r) -> {
          if (r.attempt() != null) {
            counted.put(id, r.attempt());
          }
        });
    ToIntFunction<Delivery> level = d -> level(d, resumed, stored, cameBackCleanly);
    return new Plan(group(held, level, config.batchSize()), known, stored, counted);
  }

  /**
   * What this consumer knows of the deliveries it handed back itself, forgetting it; an empty map
   * of none allocated when it handed none back (the common case).
   */
  private Map<String, Resume> takeResumed(List<Delivery> held) {
    Map<String, Resume> resumed = Map.of();
    for (Delivery d : held) {
      if (!d.isMalformed()) {
        Resume r = returns.take(d.event().id().value());
        if (r != null) {
          if (resumed.isEmpty()) {
            resumed = new HashMap<>();
          }
          resumed.put(d.event().id().value(), r);
        }
      }
    }
    return resumed;
  }

  /** The events whose failures and suspicion may be stored: handed out before. */
  private static List<String> idsToRead(List<Delivery> held, Map<String, Resume> resumed) {
    List<String> ids = new ArrayList<>();
    for (Delivery d : held) {
      if (!d.isMalformed() && (resumed.containsKey(d.event().id().value()) || flagged(d))) {
        ids.add(d.event().id().value());
      }
    }
    return ids;
  }

  /** Reads the known failures and the suspicion levels of {@code ids}: one connection, if any. */
  private void read(
      List<String> ids, Map<String, Attempts.Known> known, Map<String, Integer> stored) {
    if (ids.isEmpty()) {
      return;
    }
    try (Connection c = context.dataSource().getConnection()) {
      known.putAll(attempts.load(c, ids));
      stored.putAll(context.dialect().attempts().loadSuspects(c, config.consumerId(), ids));
    } catch (SQLException e) {
      throw new StoreException("read attempts of consumer " + config.consumerId(), e);
    }
  }

  /** A delivery's suspicion level: -1 for a fresh one. */
  private static int level(
      Delivery d,
      Map<String, Resume> resumed,
      Map<String, Integer> stored,
      Predicate<Delivery> cameBackCleanly) {
    if (d.isMalformed()) {
      return -1; // dead-lettered on its first delivery, never run
    }
    String id = d.event().id().value();
    Resume r = resumed.get(id);
    if (r != null) {
      return r.level();
    }
    int s = stored.getOrDefault(id, 0);
    if (s > 0) {
      return s;
    }
    return flagged(d) && !cameBackCleanly.test(d) ? 0 : -1;
  }

  /** Whether the transport handed {@code d} out before. */
  static boolean flagged(Delivery d) {
    return d.redelivered() || d.deliveryCount() > 1;
  }

  /**
   * The deliveries in groups, least suspect first, a key's deliveries in their order. A poll of
   * fresh deliveries only (the common case) is one group, with no map by key or level.
   */
  static List<Group> group(List<Delivery> held, ToIntFunction<Delivery> level, int batchSize) {
    int[] levels = new int[held.size()];
    boolean allFresh = true;
    for (int i = 0; i < levels.length; i++) {
      levels[i] = level.applyAsInt(held.get(i));
      allFresh &= levels[i] < 0;
    }
    if (allFresh && !held.isEmpty()) { // an ArrayList as grouped's: one class for Pipeline's loop
      List<Group> one = new ArrayList<>(1);
      one.add(new Group(held, -1));
      return one;
    }
    return grouped(held, levels, batchSize);
  }

  /** {@link #group}, some deliveries suspects: {@code levels} are theirs, in order. */
  private static List<Group> grouped(List<Delivery> held, int[] levels, int batchSize) {
    Map<String, Integer> keyLevel = new HashMap<>();
    TreeMap<Integer, List<Delivery>> byLevel = new TreeMap<>();
    for (int i = 0; i < levels.length; i++) {
      Delivery d = held.get(i);
      int l = levels[i];
      String key = d.event().key();
      if (key != null) {
        l = Math.max(l, keyLevel.getOrDefault(key, -1));
        keyLevel.put(key, l);
      }
      byLevel.computeIfAbsent(l, x -> new ArrayList<>()).add(d);
    }
    List<Group> groups = new ArrayList<>();
    byLevel.forEach(
        (l, members) -> {
          int size = l < 0 ? members.size() : groupSize(batchSize, l);
          for (int i = 0; i < members.size(); i += size) {
            groups.add(new Group(members.subList(i, Math.min(members.size(), i + size)), l));
          }
        });
    return groups;
  }

  /**
   * Before a group of suspects runs: raises its members' level, and counts the attempt of one that
   * runs alone, in one commit. Members already raised for this run (it was interrupted by a cause
   * this consumer knows) are left as they are. Returns whether anything was written.
   */
  boolean prepare(Group g, Plan plan) {
    if (!g.suspect()) {
      return false;
    }
    int target = raisedLevel(config.batchSize(), g.level(), g.members().size());
    boolean alone = g.members().size() == 1; // a crash now can only be its own
    Instant now = context.clock().instant();
    List<FailedAttempt> charges = new ArrayList<>();
    Map<String, Integer> raise = new HashMap<>();
    for (Delivery d : g.members()) {
      String id = d.event().id().value();
      if (plan.stored.getOrDefault(id, 0) < target && (!alone || charge(id, plan, charges, now))) {
        raise.put(id, target);
      }
    }
    if (raise.isEmpty()) {
      return false;
    }
    write(raise, charges, now);
    plan.stored.putAll(raise);
    logRaised(g, plan, alone);
    return true;
  }

  /**
   * Counts the attempt of {@code id}, which runs alone, unless counted already; returns false if
   * that attempt is past {@code maxAttempts} (it is dead-lettered unrun: nothing to raise or
   * count).
   */
  private boolean charge(String id, Plan plan, List<FailedAttempt> charges, Instant now) {
    if (plan.counted.containsKey(id)) {
      return true;
    }
    Attempts.Known k = plan.known.get(id);
    int attempt = k == null ? 1 : k.attempts() + 1;
    plan.counted.put(id, attempt);
    if (attempt > config.retry().maxAttempts()) {
      return false;
    }
    charges.add(attempts.started(id, attempt, k, now));
    plan.known.put(id, Attempts.afterStart(attempt, k, now));
    return true;
  }

  private void logRaised(Group g, Plan plan, boolean alone) {
    if (alone) {
      String id = g.members().get(0).event().id().value();
      log.info(
          "consumer {}: event {} came back again from a group that never committed (suspicion"
              + " level {}); it runs alone, attempt {} of {} counted first",
          config.consumerId(),
          id,
          g.level(),
          plan.counted.get(id),
          config.retry().maxAttempts());
    } else {
      log.info(
          "consumer {}: {} deliveries came back redelivered for no cause it knows (a crash of"
              + " their process?); they run as a group of suspects (level {}), raised first",
          config.consumerId(),
          g.members().size(),
          g.level());
    }
  }

  /**
   * Raises the levels and records the charges in one transaction, run again after a conflict: the
   * copies of one event held by several workers at once upsert the same rows, which InnoDB can
   * answer with a deadlock.
   */
  private void write(Map<String, Integer> raise, List<FailedAttempt> charges, Instant now) {
    try {
      Conflicts.retry(
          context.dialect(),
          () -> {
            try (Connection c = context.dataSource().getConnection()) {
              c.setAutoCommit(false);
              try {
                context.dialect().attempts().raiseSuspects(c, config.consumerId(), raise, now);
                if (!charges.isEmpty()) {
                  context.dialect().attempts().recordAttempts(c, charges);
                }
                c.commit();
                return null;
              } catch (SQLException | RuntimeException e) {
                Jdbc.rollbackQuietly(c);
                throw e;
              }
            }
          });
    } catch (SQLException e) {
      throw new StoreException("raise the suspects of consumer " + config.consumerId(), e);
    }
  }

  /**
   * Remembers how the members of {@code groups} run when they come back: they are being handed back
   * (or kept) for a cause this consumer knows, which is no evidence against them.
   */
  void remember(List<Group> groups, Plan plan) {
    for (Group g : groups) {
      for (Delivery d : g.members()) {
        if (!d.isMalformed()) {
          String id = d.event().id().value();
          returns.remember(id, new Resume(g.level(), plan.counted.get(id)));
        }
      }
    }
  }

  /**
   * On a poll that found nothing, at most every {@link #SWEEP_EVERY_NANOS} per consumer: deletes
   * the attempt and suspicion rows of events already processed. A group's own commit clears its
   * rows; these are the ones written by a holder whose delivery the other holder of the same event
   * settled first (a copy, or a claim that expired under a slow batch): nothing of that event comes
   * back to clear them, and a left row would show as a retry waiting forever. One statement per
   * table, usually deleting nothing. Best effort: a failure is tried again at the next idle poll.
   */
  void sweep() {
    long now = System.nanoTime();
    long last = lastSweep.get();
    if (now - last < SWEEP_EVERY_NANOS || !lastSweep.compareAndSet(last, now)) {
      return;
    }
    try {
      int cleared = clearSettled();
      if (cleared > 0) {
        log.info(
            "consumer {}: cleared {} attempt or suspicion rows of events already processed (the"
                + " same event was held twice and the holder that wrote them lost its delivery)",
            config.consumerId(),
            cleared);
      }
    } catch (SQLException | RuntimeException e) {
      log.debug("consumer {}: the idle sweep failed: {}", config.consumerId(), e.toString());
    }
  }

  private int clearSettled() throws SQLException {
    try (Connection c = context.dataSource().getConnection()) {
      c.setAutoCommit(false);
      try {
        int cleared = context.dialect().attempts().clearSettled(c, config.consumerId());
        c.commit();
        return cleared;
      } catch (SQLException | RuntimeException e) {
        Jdbc.rollbackQuietly(c);
        throw e;
      }
    }
  }

  /** Remembers that {@code d} ended known (a retry, a recorded failure): it comes back fresh. */
  void rememberFresh(Delivery d) {
    if (!d.isMalformed()) {
      returns.remember(d.event().id().value(), Resume.FRESH);
    }
  }
}
