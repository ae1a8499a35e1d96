package dev.once.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.once.Consumer;
import dev.once.DeadLetterFilter;
import dev.once.Handler;
import dev.once.OnceListener;
import dev.once.Outcome;
import dev.once.spi.Transport;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntPredicate;
import java.util.function.UnaryOperator;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * What an ordered consumer on a broker transport that feeds a key lane in Once's database keeps,
 * checked with {@link KeyOrderRig}: every key's effects in publish order, once each, under crashes
 * on both sides of the lane's commit; a poisoned key parks alone and a replay or a discard of its
 * head releases the rest in order. Subclass it with the transport's rig; keep the transport's own
 * tests (its queue's declaration, its broken twins) beside it.
 */
public abstract class KeyOrderContract {
  /** Keys the runs publish. */
  protected static final int KEYS = 8;

  /** Steps each key has. */
  protected static final int STEPS = 30;

  /**
   * A rig on a new database (PostgreSQL, or MariaDB when {@code mariaDb}) that it closes last.
   *
   * @param listener every member's listener
   * @param wrap wraps each member's transport
   * @param onceDataSource Once's data source, given the database's
   */
  protected abstract KeyOrderRig newRig(
      boolean mariaDb,
      OnceListener listener,
      UnaryOperator<Transport> wrap,
      UnaryOperator<DataSource> onceDataSource);

  /** Messages of the group's queue the broker still holds: ready, in flight or delayed. */
  protected abstract long leftInBroker(KeyOrderRig rig);

  @Test
  void everyKeysEffectsFollowPublishOrderUnderFourWorkersRetriesAndCrashes() {
    runWithCrashes(false);
  }

  /** The same on MariaDB: the lane is the table queue's ordered rows, which MariaDB has too. */
  @Test
  void theSameHoldsWithOncesDatabaseOnMariaDb() {
    runWithCrashes(true);
  }

  /**
   * Two events die after their lane commit, before the broker's ack; two lane writes die before
   * their commit; workers die on both sides of their commits ({@link LaneFaults#drainCrashes}).
   */
  private void runWithCrashes(boolean mariaDb) {
    Set<String> dying = ConcurrentHashMap.newKeySet();
    dying.addAll(List.of("step:k0:6", "step:k3:17"));
    AtomicInteger diedBeforeCommit = new AtomicInteger();
    IntPredicate dies = n -> (n == 3 || n == 9) && diedBeforeCommit.incrementAndGet() > 0;
    try (KeyOrderRig rig =
        newRig(
            mariaDb,
            LaneFaults.drainCrashes(),
            t -> new LaneFaults.Wrapped(t, r -> LaneFaults.dyingOnAckOf(r, dying)),
            ds -> LaneFaults.dyingAtLaneCommit(ds, dies))) {
      Consumer consumer =
          rig.closing(
              rig.consumer(rig.once(), KeyOrderRig.failingFirstAttempts(), KeyOrderRig.fast(5))
                  .build());
      rig.publish(KEYS, 1, STEPS);
      consumer.start();
      rig.startRelay();
      rig.await("all effects", () -> rig.effects() >= (long) KEYS * STEPS);
      rig.await("lane empty", () -> rig.count("SELECT count(*) FROM once_queue") == 0);
      rig.await("nothing left in the broker", () -> leftInBroker(rig) == 0);

      assertEquals(2, diedBeforeCommit.get(), "died before two lane commits");
      assertEquals(Set.of(), dying, "died after two lane commits, before the broker's ack");
      assertTrue(
          rig.outcomes().get(Outcome.DUPLICATE) >= 2,
          "the batches acknowledged by no one came again and ran as duplicates");
      assertEquals((long) KEYS * STEPS, rig.effects(), "one effect per event");
      assertEquals(0, rig.outOfOrder(), "effects out of key order");
    }
  }

  /**
   * A key whose head is dead-lettered in the lane parks alone: its later events wait in the lane,
   * in order, while every other key finishes; a replay of the head runs it first, then the rest.
   */
  @Test
  void aPoisonedKeyParksAloneAndAReplayReleasesItInOrder() {
    AtomicBoolean poisoned = new AtomicBoolean(true);
    Handler handler =
        (tx, e) -> {
          if (poisoned.get() && e.id().value().equals("step:k0:4")) {
            throw new IllegalStateException("poison");
          }
          KeyOrderRig.record(tx, e);
        };
    try (KeyOrderRig rig = newRig(false, new OnceListener() {}, t -> t, ds -> ds)) {
      Consumer consumer =
          rig.closing(rig.consumer(rig.once(), handler, KeyOrderRig.fast(3)).build());
      rig.publish(KEYS, 1, STEPS);
      consumer.start();
      rig.startRelay();
      rig.await("all but k0's rest", () -> rig.effects() == (long) KEYS * STEPS - (STEPS - 3));
      rig.await(
          "k0's rest in the lane",
          () -> rig.count("SELECT count(*) FROM once_queue WHERE event_key = 'k0'") == STEPS - 4);

      assertEquals("1,2,3", rig.stepsOf("k0"));
      assertEquals(
          1, rig.count("SELECT count(*) FROM once_parked_key WHERE event_key = 'k0'"), "parked");
      assertEquals(KeyOrderRig.steps(1, STEPS, 0), rig.stepsOf("k1"));
      rig.await("nothing left in the broker", () -> leftInBroker(rig) == 0);

      poisoned.set(false);
      rig.once().deadLetters().replayKey("warehouse", "k0", "test", "fixed");
      rig.await("k0 done", () -> rig.effects() == (long) KEYS * STEPS);
      rig.await("lane empty", () -> rig.count("SELECT count(*) FROM once_queue") == 0);

      assertEquals(KeyOrderRig.steps(1, STEPS, 0), rig.stepsOf("k0"));
      assertEquals(0, rig.outOfOrder(), "out of order, repeated or lost");
      assertEquals(0, rig.count("SELECT count(*) FROM once_parked_key"), "parked keys");
    }
  }

  /** A discard of the parked head releases the rest of its key, in order, without it. */
  @Test
  void aDiscardOfTheParkedHeadReleasesTheRestInOrder() {
    Handler handler =
        (tx, e) -> {
          if (e.id().value().equals("step:k0:4")) {
            throw new IllegalStateException("poison");
          }
          KeyOrderRig.record(tx, e);
        };
    try (KeyOrderRig rig = newRig(false, new OnceListener() {}, t -> t, ds -> ds)) {
      Consumer consumer =
          rig.closing(rig.consumer(rig.once(), handler, KeyOrderRig.fast(3)).build());
      rig.publish(2, 1, 10);
      consumer.start();
      rig.startRelay();
      rig.await(
          "k0's rest in the lane",
          () -> rig.count("SELECT count(*) FROM once_queue WHERE event_key = 'k0'") == 6);
      rig.await("k1 done", () -> rig.stepsOf("k1").equals(KeyOrderRig.steps(1, 10, 0)));

      assertEquals(
          1,
          rig.once()
              .deadLetters()
              .discard(DeadLetterFilter.open().event("step:k0:4"), "test", "obsolete")
              .size());
      rig.await("k0 released", () -> rig.effects() == 19);
      assertEquals(KeyOrderRig.steps(1, 10, 4), rig.stepsOf("k0"));
      rig.await("lane empty", () -> rig.count("SELECT count(*) FROM once_queue") == 0);
      assertEquals(0, rig.count("SELECT count(*) FROM once_parked_key"), "parked keys");
    }
  }
}
