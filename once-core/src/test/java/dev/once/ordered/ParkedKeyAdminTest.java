package dev.once.ordered;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.once.Consumer;
import dev.once.DeadLetterFilter;
import dev.once.ParkedKey;
import dev.once.PayloadDecodingException;
import dev.once.Relay;
import dev.once.WorkloadStatus;
import dev.once.test.TestDatabase;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * What an operator sees of parked keys and how a whole key is released: listed with the events
 * behind each, replayed head first then in order (one transaction, once under concurrent replays),
 * discarded with the events behind it; and hostile cases: a head that never decodes, a key parked
 * for a day.
 */
class ParkedKeyAdminTest {
  private static final int KEYS = 6;
  private static final int STEPS = 8;

  @Test
  void aParkedKeyIsListedWithItsHeadsDeadLetterAndTheEventsBehindIt() {
    try (KeyedSteps run = new KeyedSteps(TestDatabase.local(), null, null)) {
      Consumer consumer = poisonedAt(run, "step:k3:4", new AtomicBoolean(true));
      parkK3AtStep4(run, consumer);

      long deadLetterId = run.once.deadLetters().list(DeadLetterFilter.open()).get(0).id();
      List<ParkedKey> keys = run.once.deadLetters().parkedKeys(null, null, 0, 100);
      assertThat(keys)
          .singleElement()
          .satisfies(
              k -> {
                assertThat(k.consumerGroup()).isEqualTo("warehouse");
                assertThat(k.destination()).isEqualTo("orders");
                assertThat(k.key()).isEqualTo("k3");
                assertThat(k.headEventId()).isEqualTo("step:k3:4");
                assertThat(k.deadLetterId()).isEqualTo(deadLetterId);
                assertThat(k.eventsBehind()).isEqualTo(STEPS - 4);
              });
      assertThat(run.once.deadLetters().parkedKeysHeadedBy(List.of(deadLetterId, 999_999L)))
          .containsExactlyElementsOf(keys);
      assertThat(run.once.deadLetters().parkedKeys("other", null, 0, 100)).isEmpty();
      assertThat(run.once.deadLetters().parkedKeys(null, "k3", deadLetterId, 100))
          .as("the page after the last id")
          .isEmpty();
      consumer.close();
    }
  }

  @Test
  void aReplayOfTheWholeKeyRunsTheHeadFirstThenTheRestInOrder() {
    try (KeyedSteps run = new KeyedSteps(TestDatabase.local(), null, null)) {
      AtomicBoolean poisoned = new AtomicBoolean(true);
      Consumer consumer = poisonedAt(run, "step:k3:4", poisoned);
      parkK3AtStep4(run, consumer);
      long headId = run.db.count("SELECT head_id FROM once_parked_key");

      poisoned.set(false);
      List<ParkedKey> replayed = run.once.deadLetters().replayKey(null, "k3", "test", "fixed");
      assertThat(replayed).singleElement().satisfies(k -> assertThat(k.key()).isEqualTo("k3"));
      assertThat(run.db.count("SELECT count(*) FROM once_parked_key")).isZero();
      assertThat(run.db.count("SELECT min(id) FROM once_queue WHERE event_key = 'k3'"))
          .as("the head is back in its old place, first of its key")
          .isEqualTo(headId);
      drain(run, consumer, KEYS * STEPS);

      assertThat(run.steps("k3")).isEqualTo(IntStream.rangeClosed(1, STEPS).boxed().toList());
      assertThat(run.outOfOrder()).isZero();
      assertThat(actions(run, "replay")).isEqualTo(1);
      consumer.close();
    }
  }

  /** Eight operators replay the same key at the same instant: its head is enqueued and run once. */
  @Test
  void concurrentReplaysOfOneKeyRunItsHeadOnce() throws Exception {
    try (KeyedSteps run = new KeyedSteps(TestDatabase.local(), null, null)) {
      AtomicBoolean poisoned = new AtomicBoolean(true);
      AtomicInteger headRuns = new AtomicInteger();
      Consumer consumer =
          run.consumer(
                  (tx, e) -> {
                    if (e.id().value().equals("step:k3:4")) {
                      headRuns.incrementAndGet();
                      if (poisoned.get()) {
                        throw new IllegalStateException("poison");
                      }
                    }
                    KeyedSteps.record(tx, e);
                  },
                  KeyedSteps.fast(1))
              .ordered()
              .build();
      parkK3AtStep4(run, consumer);
      poisoned.set(false);

      int operators = 8;
      CountDownLatch start = new CountDownLatch(1);
      ExecutorService pool = Executors.newFixedThreadPool(operators);
      List<Future<List<ParkedKey>>> results = new ArrayList<>();
      for (int i = 0; i < operators; i++) {
        String actor = "operator-" + i;
        results.add(
            pool.submit(
                () -> {
                  start.await();
                  return run.once.deadLetters().replayKey("warehouse", "k3", actor, "fixed");
                }));
      }
      start.countDown();
      int released = 0;
      for (Future<List<ParkedKey>> r : results) {
        released += r.get().size();
      }
      pool.shutdown();

      assertThat(released).as("replays that released the key").isEqualTo(1);
      assertThat(run.db.count("SELECT count(*) FROM once_queue WHERE event_id = 'step:k3:4'"))
          .isEqualTo(1);
      drain(run, consumer, KEYS * STEPS);
      assertThat(headRuns.get()).as("the head: once poisoned, once replayed").isEqualTo(2);
      assertThat(run.steps("k3")).isEqualTo(IntStream.rangeClosed(1, STEPS).boxed().toList());
      assertThat(actions(run, "replay")).isEqualTo(1);
      consumer.close();
    }
  }

  @Test
  void aDiscardOfTheWholeKeyDeletesTheHeadAndTheEventsBehindItAndRecordsEach() {
    try (KeyedSteps run = new KeyedSteps(TestDatabase.local(), null, null)) {
      Consumer consumer = poisonedAt(run, "step:k3:4", new AtomicBoolean(true));
      parkK3AtStep4(run, consumer);

      List<ParkedKey> discarded =
          run.once.deadLetters().discardKey("warehouse", "k3", "test", "order cancelled");
      assertThat(discarded)
          .singleElement()
          .satisfies(k -> assertThat(k.eventsBehind()).as("deleted").isEqualTo(STEPS - 4));
      assertThat(run.db.count("SELECT count(*) FROM once_parked_key")).isZero();
      assertThat(run.db.count("SELECT count(*) FROM once_queue WHERE event_key = 'k3'")).isZero();
      assertThat(run.db.count("SELECT count(*) FROM once_dead_letter WHERE status = 'discarded'"))
          .isEqualTo(1);
      assertThat(actions(run, "discard"))
          .as("the head and each event behind it")
          .isEqualTo(STEPS - 3);
      assertThat(
              run.db.count(
                  "SELECT count(*) FROM once_dead_letter_action WHERE event_id = 'step:k3:8'"
                      + " AND reason = 'with parked key k3 behind event step:k3:4: order"
                      + " cancelled'"))
          .isEqualTo(1);

      // the key is released: an event of it published afterwards runs
      run.once.useTransaction(
          tx ->
              tx.publish(dev.once.Event.of(KeyedSteps.id("k3", 9), "orders", "k3", "Step", "{}")));
      drain(run, consumer, KEYS * STEPS - (STEPS - 3) + 1);
      assertThat(run.steps("k3")).containsExactly(1, 2, 3, 9);
      consumer.close();
    }
  }

  /**
   * A head whose payload never decodes: each replay runs it once, it is dead again, the key parks
   * again behind it with its events still in order, and no further polls touch it.
   */
  @Test
  void aHeadThatNeverDecodesIsDeadAgainAfterAReplayAndItsKeyStaysParkedWithoutALoop() {
    try (KeyedSteps run = new KeyedSteps(TestDatabase.local(), null, null)) {
      AtomicInteger decodes = new AtomicInteger();
      Consumer consumer =
          run.consumer(
                  (tx, e) -> {
                    if (e.id().value().equals("step:k3:4")) {
                      decodes.incrementAndGet();
                      throw new PayloadDecodingException(
                          e.event(), Integer.class, new IllegalArgumentException("not a number"));
                    }
                    KeyedSteps.record(tx, e);
                  },
                  KeyedSteps.fast(5))
              .ordered()
              .build();
      parkK3AtStep4(run, consumer);
      assertThat(decodes.get()).as("a payload that does not decode is not retried").isEqualTo(1);

      assertThat(run.once.deadLetters().replayKey(null, "k3", "test", "try")).hasSize(1);
      await("parked again")
          .atMost(Duration.ofSeconds(30))
          .until(
              () -> {
                consumer.runOnce();
                return run.db.count("SELECT count(*) FROM once_parked_key") == 1;
              });
      for (int i = 0; i < 20; i++) {
        consumer.runOnce();
      }
      assertThat(decodes.get()).as("one run per replay, no loop").isEqualTo(2);
      assertThat(run.db.count("SELECT count(*) FROM once_dead_letter WHERE status = 'dead'"))
          .isEqualTo(1);
      assertThat(run.once.deadLetters().parkedKeys(null, "k3", 0, 10))
          .singleElement()
          .satisfies(k -> assertThat(k.eventsBehind()).isEqualTo(STEPS - 4));
      assertThat(run.steps("k3")).containsExactly(1, 2, 3);
      consumer.close();
    }
  }

  /** A day later the key is still parked, its age a day, its events still behind it. */
  @Test
  void aKeyParkedForADayShowsItsAgeAndNothingExpiresIt() {
    try (KeyedSteps run = new KeyedSteps(TestDatabase.local(), null, null)) {
      Consumer consumer = poisonedAt(run, "step:k3:4", new AtomicBoolean(true));
      parkK3AtStep4(run, consumer);

      run.clock.advance(Duration.ofDays(1));
      run.once.newRetention().runOnce();
      for (int i = 0; i < 5; i++) {
        consumer.runOnce();
      }

      ParkedKey k = run.once.deadLetters().parkedKeys(null, null, 0, 10).get(0);
      assertThat(k.age(run.clock.instant()))
          .isBetween(Duration.ofDays(1), Duration.ofDays(1).plusMinutes(5));
      assertThat(k.eventsBehind()).isEqualTo(STEPS - 4);
      WorkloadStatus.Backlog keys = run.once.status().parkedKeys().get(0);
      assertThat(keys.parked()).isEqualTo(1);
      assertThat(keys.oldestAge()).isBetween(Duration.ofDays(1), Duration.ofDays(1).plusMinutes(5));
      assertThat(run.db.count("SELECT count(*) FROM once_dead_letter WHERE status = 'dead'"))
          .isEqualTo(1);
      assertThat(run.steps("k3")).containsExactly(1, 2, 3);
      consumer.close();
    }
  }

  private static long actions(KeyedSteps run, String action) {
    return run.db.count("SELECT count(*) FROM once_dead_letter_action WHERE action = ?", action);
  }

  private static Consumer poisonedAt(KeyedSteps run, String eventId, AtomicBoolean poisoned) {
    return run.consumer(KeyedSteps.poisonedAt(eventId, poisoned), KeyedSteps.fast(1))
        .ordered()
        .build();
  }

  /** Publishes KEYS x STEPS and runs until k3 parked behind its step 4 and every other key ran. */
  private static void parkK3AtStep4(KeyedSteps run, Consumer consumer) {
    run.publish(KEYS, STEPS);
    drain(run, consumer, KEYS * STEPS - (STEPS - 3));
    await("k3 parked")
        .atMost(Duration.ofSeconds(30))
        .until(
            () -> {
              consumer.runOnce();
              return run.db.count("SELECT count(*) FROM once_parked_key") == 1;
            });
    assertThat(run.steps("k3")).containsExactly(1, 2, 3);
  }

  /** Relay and consumer on this thread until {@code effects} effects. */
  private static void drain(KeyedSteps run, Consumer consumer, long effects) {
    Relay relay = run.once.newRelay();
    await("effects = " + effects)
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(1))
        .until(
            () -> {
              relay.runOnce();
              consumer.runOnce();
              return run.effects() >= effects;
            });
  }
}
