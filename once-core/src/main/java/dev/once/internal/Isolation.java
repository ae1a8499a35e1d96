package dev.once.internal;

import dev.once.ConsumerConfig;
import dev.once.StoreException;
import dev.once.internal.Returns.Resume;
import dev.once.jdbc.FailedAttempt;
import dev.once.spi.Delivery;
import dev.once.spi.Receiver;
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
import java.util.function.ToIntFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Finds a poison that kills the process by bisection, without charging the innocents of its batch.
 *
 * <p>A delivery that comes back flagged redelivered, when neither this consumer ({@link Returns})
 * nor its transport ({@link Receiver#cameBackCleanly}) knows why, may have been in a batch that
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

  /** Deliveries that run in one transaction; {@code level} -1 for a fresh batch. */
  record Group(List<Delivery> members, int level) {
    boolean suspect() {
      return level >= 0;
    }
  }

  /** One poll's deliveries as groups, with what the store knows of them. */
  static final class Plan {
    final List<Group> groups;

    /** Failures recorded, by event id; attempts counted before a run are added. */
    final Map<String, Attempts.Known> known;

    /** Suspicion levels as stored, by event id; raised ones are updated. */
    final Map<String, Integer> stored;

    /** The attempt counted for an event that runs alone, before its handler. */
    final Map<String, Integer> counted;

    Plan(
        List<Group> groups,
        Map<String, Attempts.Known> known,
        Map<String, Integer> stored,
        Map<String, Integer> counted) {
      this.groups = groups;
      this.known = known;
      this.stored = stored;
      this.counted = counted;
    }

    /** The known attempts of the events whose attempt was counted before their run. */
    Map<String, Attempts.Known> started() {
      Map<String, Attempts.Known> started = new HashMap<>();
      counted.keySet().forEach(id -> started.put(id, known.get(id)));
      return started;
    }

    /** Members of {@code g} with a suspicion row, which the group's commit deletes. */
    List<String> toClear(Group g) {
      List<String> ids = new ArrayList<>();
      for (Delivery d : g.members()) {
        String id = d.event().id().value();
        if (stored.getOrDefault(id, 0) > 0 && !ids.contains(id)) {
          ids.add(id);
        }
      }
      return ids;
    }
  }

  /** How often an idle consumer looks for attempt and suspicion rows left by processed events. */
  static final long SWEEP_EVERY_NANOS = TimeUnit.SECONDS.toNanos(5);

  private final OnceImpl once;
  private final ConsumerConfig config;
  private final Attempts attempts;
  private final Returns returns;
  private final AtomicLong lastSweep = new AtomicLong(System.nanoTime() - SWEEP_EVERY_NANOS);

  Isolation(OnceImpl once, ConsumerConfig config, Attempts attempts, Returns returns) {
    this.once = once;
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
   */
  Plan plan(Receiver receiver, List<Delivery> held) {
    Map<String, Resume> resumed = new HashMap<>();
    List<String> ids = new ArrayList<>();
    for (Delivery d : held) {
      if (!d.isMalformed()) {
        String id = d.event().id().value();
        Resume r = returns.take(id);
        if (r != null) {
          resumed.put(id, r);
        }
        if (r != null || flagged(d)) {
          ids.add(id);
        }
      }
    }
    Map<String, Attempts.Known> known = new HashMap<>();
    Map<String, Integer> stored = new HashMap<>();
    if (!ids.isEmpty()) {
      try (Connection c = once.dataSource().getConnection()) {
        known.putAll(attempts.load(c, ids));
        stored.putAll(once.dialect().attempts().loadSuspects(c, config.consumerId(), ids));
      } catch (SQLException e) {
        throw new StoreException("read attempts of consumer " + config.consumerId(), e);
      }
    }
    Map<String, Integer> counted = new HashMap<>();
    resumed.forEach(
        (id, r) -> {
          if (r.attempt() != null) {
            counted.put(id, r.attempt());
          }
        });
    ToIntFunction<Delivery> level =
        d -> {
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
          return flagged(d) && !receiver.cameBackCleanly(d) ? 0 : -1;
        };
    return new Plan(group(held, level, config.batchSize()), known, stored, counted);
  }

  /** Whether the transport handed {@code d} out before. */
  static boolean flagged(Delivery d) {
    return d.redelivered() || d.deliveryCount() > 1;
  }

  /** The deliveries in groups, least suspect first, a key's deliveries in their order. */
  static List<Group> group(List<Delivery> held, ToIntFunction<Delivery> level, int batchSize) {
    Map<String, Integer> keyLevel = new HashMap<>();
    TreeMap<Integer, List<Delivery>> byLevel = new TreeMap<>();
    for (Delivery d : held) {
      int l = level.applyAsInt(d);
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
            groups.add(
                new Group(List.copyOf(members.subList(i, Math.min(members.size(), i + size))), l));
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
    Instant now = once.config().clock().instant();
    Map<String, Integer> raise = new HashMap<>();
    List<FailedAttempt> charges = new ArrayList<>();
    for (Delivery d : g.members()) {
      String id = d.event().id().value();
      if (plan.stored.getOrDefault(id, 0) >= target) {
        continue;
      }
      if (alone && !plan.counted.containsKey(id)) {
        Attempts.Known k = plan.known.get(id);
        int attempt = k == null ? 1 : k.attempts() + 1;
        plan.counted.put(id, attempt);
        if (attempt > config.retry().maxAttempts()) {
          continue; // it is dead-lettered unrun: nothing to raise or count
        }
        charges.add(attempts.started(id, attempt, k, now));
        plan.known.put(id, Attempts.afterStart(attempt, k, now));
      }
      raise.put(id, target);
    }
    if (raise.isEmpty()) {
      return false;
    }
    write(raise, charges, now);
    plan.stored.putAll(raise);
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
    return true;
  }

  /**
   * Raises the levels and records the charges in one transaction, run again after a conflict: the
   * copies of one event held by several workers at once upsert the same rows, which InnoDB can
   * answer with a deadlock.
   */
  private void write(Map<String, Integer> raise, List<FailedAttempt> charges, Instant now) {
    try {
      Conflicts.retry(
          once.dialect(),
          () -> {
            try (Connection c = once.dataSource().getConnection()) {
              c.setAutoCommit(false);
              try {
                once.dialect().attempts().raiseSuspects(c, config.consumerId(), raise, now);
                if (!charges.isEmpty()) {
                  once.dialect().attempts().recordAttempts(c, charges);
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
    try (Connection c = once.dataSource().getConnection()) {
      c.setAutoCommit(false);
      int cleared;
      try {
        cleared = once.dialect().attempts().clearSettled(c, config.consumerId());
        c.commit();
      } catch (SQLException | RuntimeException e) {
        Jdbc.rollbackQuietly(c);
        throw e;
      }
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

  /** Remembers that {@code d} ended known (a retry, a recorded failure): it comes back fresh. */
  void rememberFresh(Delivery d) {
    if (!d.isMalformed()) {
      returns.remember(d.event().id().value(), Resume.FRESH);
    }
  }
}
