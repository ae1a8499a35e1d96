package dev.once.ordered;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.once.ConfigurationException;
import dev.once.Consumer;
import dev.once.DeadLetterFilter;
import dev.once.OnceListener;
import dev.once.ReceivedEvent;
import dev.once.RetryPolicy;
import dev.once.internal.postgres.PostgresFlavour;
import dev.once.internal.postgres.PostgresQueue;
import dev.once.jdbc.Dialect;
import dev.once.jdbc.JdbcDialect;
import dev.once.jdbc.QueueClaim;
import dev.once.jdbc.SqlFlavour;
import dev.once.jdbc.TransactionWaits;
import dev.once.spi.Delivery;
import dev.once.test.TestDatabase;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * An ordered consumer on the table queue: every key's effects commit in publish order, one step
 * after the other, under four workers, retries and crashes after commit; a poisoned key parks alone
 * and a replay or discard of its head releases it in order. The checker is {@link
 * KeyedSteps#OUT_OF_ORDER}; the broken twin (the ordered claim without its head-of-key condition)
 * shows that it catches an overtaking.
 */
class OrderedConsumerTest {
  /** A new, empty database of the kind under test. */
  TestDatabase database() {
    return TestDatabase.embedded();
  }

  private static final int KEYS = 40;
  private static final int STEPS = 15;

  @Test
  void everyKeysEffectsFollowPublishOrderUnderFourWorkersRetriesAndCrashesInsideAndAfterCommit() {
    try (KeyedSteps run = new KeyedSteps(database(), null, crashes())) {
      Consumer consumer =
          run.consumer(failingFirstAttempts(), KeyedSteps.fast(5)).workers(4).ordered().build();
      run.publish(KEYS, STEPS);
      run.runUntil(consumer, KEYS * STEPS);
      consumer.close();

      assertThat(run.effects()).isEqualTo(KEYS * STEPS);
      assertThat(run.outOfOrder()).as("effects out of key order").isZero();
      assertThat(run.db.count("SELECT count(*) FROM once_parked_key")).isZero();
    }
  }

  /**
   * The same run with the ordered claim's head-of-key condition taken out: a retried step comes
   * back after its key's later steps, and the checker sees it. k0's step 2 fails until a later step
   * of k0 has committed, so the twin shows the overtaking whatever the machine's load.
   */
  @Test
  void theCheckerCatchesAClaimThatLetsAKeysLaterEventOvertake() {
    try (KeyedSteps run = new KeyedSteps(database(), withoutHeadOfKey(), crashes())) {
      Consumer consumer =
          run.consumer(KeyedSteps.failingUntilOvertaken("k0", 2), KeyedSteps.patient())
              .workers(4)
              .ordered()
              .build();
      run.publish(KEYS, STEPS);
      run.runUntil(consumer, KEYS * STEPS);
      consumer.close();

      assertThat(run.outOfOrder()).as("effects out of key order").isPositive();
    }
  }

  @Test
  void aRetriedEventKeepsItsPlaceWhileOtherKeysFlow() {
    try (KeyedSteps run = new KeyedSteps(database(), null, null)) {
      AtomicBoolean failNext = new AtomicBoolean(true);
      RetryPolicy slow =
          RetryPolicy.builder()
              .maxAttempts(3)
              .backoff(Duration.ofHours(1), Duration.ofHours(1))
              .build();
      Consumer consumer =
          run.consumer(
                  (tx, e) -> {
                    if (e.key().equals("k0") && failNext.getAndSet(false)) {
                      throw new IllegalStateException("k0 step 1 fails once");
                    }
                    KeyedSteps.record(tx, e);
                  },
                  slow)
              .ordered()
              .build();
      run.publish(3, 4);
      run.once.newRelay().runOnce();
      for (int i = 0; i < 10; i++) {
        consumer.runOnce();
      }
      assertThat(run.steps("k0")).as("k0 waits for its step 1's retry").isEmpty();
      assertThat(run.steps("k1")).containsExactly(1, 2, 3, 4);
      assertThat(run.steps("k2")).containsExactly(1, 2, 3, 4);

      run.clock.advance(Duration.ofHours(1)); // the retry is due
      for (int i = 0; i < 10; i++) {
        consumer.runOnce();
      }
      assertThat(run.steps("k0")).containsExactly(1, 2, 3, 4);
    }
  }

  @Test
  void aPoisonedKeyParksAloneAndAReplayOfItsHeadReleasesItInOrder() {
    try (KeyedSteps run = new KeyedSteps(database(), null, null)) {
      AtomicBoolean poisoned = new AtomicBoolean(true);
      Consumer consumer = poisonedAtK3Step4(run, poisoned);
      run.publish(KEYS, STEPS);
      run.runUntil(consumer, KEYS * STEPS - (STEPS - 3));
      assertParkedBehindK3Step4(run);

      poisoned.set(false);
      assertThat(
              run.once.deadLetters().replay(DeadLetterFilter.open(), "test", "fixed").stream()
                  .map(d -> d.event().id().value()))
          .containsExactly("step:k3:4");
      run.runUntil(consumer, KEYS * STEPS);
      consumer.close();

      assertThat(run.steps("k3")).isEqualTo(IntStream.rangeClosed(1, STEPS).boxed().toList());
      assertThat(run.outOfOrder()).as("effects out of key order").isZero();
      assertThat(run.db.count("SELECT count(*) FROM once_parked_key")).isZero();
      assertThat(run.db.count("SELECT count(*) FROM once_queue")).isZero();
      assertThat(
              run.db.count(
                  "SELECT count(*) FROM once_dead_letter_action WHERE action = 'replay'"
                      + " AND event_id = 'step:k3:4'"))
          .isEqualTo(1);
    }
  }

  @Test
  void aDiscardOfAParkedKeysHeadReleasesTheRestInOrder() {
    try (KeyedSteps run = new KeyedSteps(database(), null, null)) {
      AtomicBoolean poisoned = new AtomicBoolean(true);
      Consumer consumer = poisonedAtK3Step4(run, poisoned);
      run.publish(KEYS, STEPS);
      run.runUntil(consumer, KEYS * STEPS - (STEPS - 3));
      assertParkedBehindK3Step4(run);

      run.once.deadLetters().discard(DeadLetterFilter.open(), "test", "obsolete");
      run.runUntil(consumer, KEYS * STEPS - 1);
      consumer.close();

      assertThat(run.steps("k3"))
          .isEqualTo(IntStream.rangeClosed(1, STEPS).filter(s -> s != 4).boxed().toList());
      assertThat(run.outOfOrder()).as("only the discarded step is missing").isEqualTo(1);
      assertThat(run.db.count("SELECT count(*) FROM once_parked_key")).isZero();
      assertThat(
              run.db.count(
                  "SELECT count(*) FROM once_dead_letter_action WHERE action = 'discard'"
                      + " AND event_id = 'step:k3:4'"))
          .isEqualTo(1);
    }
  }

  @Test
  void aReplayedHeadThatFailsAgainParksItsKeyAgain() {
    try (KeyedSteps run = new KeyedSteps(database(), null, null)) {
      Consumer consumer = poisonedAtK3Step4(run, new AtomicBoolean(true));
      run.publish(KEYS, STEPS);
      run.runUntil(consumer, KEYS * STEPS - (STEPS - 3));
      assertParkedBehindK3Step4(run);

      run.once.deadLetters().replay(DeadLetterFilter.open(), "test", "try again");
      org.awaitility.Awaitility.await("parked again")
          .atMost(Duration.ofSeconds(30))
          .until(
              () ->
                  run.db.count("SELECT count(*) FROM once_dead_letter WHERE status = 'dead'") == 1
                      && run.db.count("SELECT count(*) FROM once_parked_key") == 1);
      consumer.close();
      assertParkedBehindK3Step4(run);
    }
  }

  /**
   * A worker that dies after the dead letter's commit, before its ack: the head row is still in the
   * queue and holds its key back; its redelivery finds the open dead letter, and its ack parks the
   * key then. No later step of the key runs in between.
   */
  @Test
  void aCrashBetweenTheDeadLettersCommitAndItsAckStillParksTheKey() {
    AtomicBoolean crashOnce = new AtomicBoolean(true);
    OnceListener crashAfterDeadLetter =
        new OnceListener() {
          @Override
          public void committed(List<ReceivedEvent> events) {
            if (events.stream().anyMatch(e -> e.id().value().equals("step:k0:1"))
                && crashOnce.getAndSet(false)) {
              throw new Error("simulated crash after the dead letter's commit, before its ack");
            }
          }
        };
    try (KeyedSteps run = new KeyedSteps(database(), null, crashAfterDeadLetter)) {
      Consumer consumer =
          run.consumer(
                  KeyedSteps.poisonedAt("step:k0:1", new AtomicBoolean(true)), KeyedSteps.fast(1))
              .workers(4)
              .ordered()
              .build();
      run.publish(8, 5);
      run.runUntil(consumer, 7 * 5);
      org.awaitility.Awaitility.await("k0 parked")
          .atMost(Duration.ofSeconds(30))
          .until(() -> run.db.count("SELECT count(*) FROM once_parked_key") == 1);
      consumer.close();

      assertThat(crashOnce.get()).as("the crash happened").isFalse();
      assertThat(run.steps("k0")).as("nothing of k0 ran past its dead head").isEmpty();
      assertThat(run.db.count("SELECT count(*) FROM once_queue WHERE event_key = 'k0'"))
          .isEqualTo(4);
      assertThat(run.db.count("SELECT count(*) FROM once_dead_letter")).isEqualTo(1);
      assertThat(run.outOfOrder()).isZero();
    }
  }

  @Test
  void anOrderedConsumerIsRefusedOnATransportThatCannotOrder() {
    try (TestDatabase db = database();
        dev.once.tablequeue.TableQueueTransport queue =
            dev.once.tablequeue.TableQueueTransport.create(db.dataSource());
        dev.once.Once once =
            dev.once.Once.builder()
                .dataSource(db.dataSource())
                .transport(
                    new dev.once.spi.ForwardingTransport(queue) {
                      @Override
                      public <C> java.util.Optional<C> capability(Class<C> type) {
                        return type == dev.once.spi.KeyOrder.class
                            ? java.util.Optional.empty()
                            : super.capability(type);
                      }
                    })
                .build()) {
      assertThatThrownBy(
              () -> once.consumer("warehouse").subscribe("orders", (tx, e) -> {}).ordered().build())
          .isInstanceOf(ConfigurationException.class)
          .hasMessageContaining("consumer.ordered")
          .hasMessageContaining("does not deliver in key order");
    }
  }

  private static Consumer poisonedAtK3Step4(KeyedSteps run, AtomicBoolean poisoned) {
    return run.consumer(KeyedSteps.poisonedAt("step:k3:4", poisoned), KeyedSteps.fast(3))
        .workers(4)
        .ordered()
        .build();
  }

  /** k3 ran steps 1–3, its step 4 is dead, 5.. wait in the queue behind the parked key. */
  private static void assertParkedBehindK3Step4(KeyedSteps run) {
    org.awaitility.Awaitility.await("k3 parked")
        .atMost(Duration.ofSeconds(30))
        .until(() -> run.db.count("SELECT count(*) FROM once_parked_key") == 1);
    assertThat(run.steps("k3")).containsExactly(1, 2, 3);
    assertThat(
            run.db.count(
                "SELECT count(*) FROM once_parked_key WHERE consumer_group = 'warehouse'"
                    + " AND event_key = 'k3' AND event_id = 'step:k3:4'"))
        .isEqualTo(1);
    assertThat(run.db.count("SELECT count(*) FROM once_queue WHERE event_key = 'k3'"))
        .as("k3's later steps kept, in the queue")
        .isEqualTo(STEPS - 4);
    assertThat(run.db.count("SELECT count(*) FROM once_queue WHERE event_key <> 'k3'")).isZero();
    assertThat(run.outOfOrder()).isZero();
    assertThat(run.once.status().parkedKeys())
        .singleElement()
        .satisfies(
            b -> {
              assertThat(b.name()).isEqualTo("warehouse");
              assertThat(b.parked()).as("keys parked").isEqualTo(1);
              assertThat(b.waiting()).as("events behind them").isEqualTo(STEPS - 4);
            });
  }

  /** Fails the first attempt of every seventh event (by id), so those come back after a backoff. */
  private static dev.once.Handler failingFirstAttempts() {
    Set<String> failed = ConcurrentHashMap.newKeySet();
    return (tx, e) -> {
      if (Math.floorMod(e.id().value().hashCode(), 7) == 0 && failed.add(e.id().value())) {
        throw new IllegalStateException("first attempt fails");
      }
      KeyedSteps.record(tx, e);
    };
  }

  /**
   * Every 13th committed batch's worker dies before its ack (the batch comes back, DUPLICATE), and
   * every 29th handled event's worker dies before its batch commits (the batch rolls back and comes
   * back): both between the claim and the ack, the key's head still in the queue.
   */
  private static OnceListener crashes() {
    AtomicInteger batches = new AtomicInteger();
    AtomicInteger handled = new AtomicInteger();
    return new OnceListener() {
      @Override
      public void handled(ReceivedEvent event) {
        if (handled.incrementAndGet() % 29 == 0) {
          throw new Error("simulated crash after the handler, before commit");
        }
      }

      @Override
      public void committed(List<ReceivedEvent> events) {
        if (batches.incrementAndGet() % 13 == 0) {
          throw new Error("simulated crash after commit, before ack");
        }
      }
    };
  }

  /**
   * The ordered claim without its head-of-key condition: the broken twin. Both ways a receiver
   * claims are broken: the claim alone, and the claim begun and committed in one round trip ({@code
   * claimAndCommit}, which on PostgreSQL sends its own statement, not {@code claimInKeyOrder}).
   */
  Dialect withoutHeadOfKey() {
    PostgresFlavour flavour = new PostgresFlavour();
    return JdbcDialect.builder(flavour)
        .queue(
            new PostgresQueue(flavour) {
              @Override
              public List<Delivery> claimInKeyOrder(Connection c, QueueClaim claim)
                  throws SQLException {
                return claim(c, claim);
              }

              @Override
              public List<Delivery> claimAndCommit(
                  Connection c,
                  SqlFlavour sqlFlavour,
                  TransactionWaits waits,
                  QueueClaim claim,
                  boolean inKeyOrder)
                  throws SQLException {
                return super.claimAndCommit(c, sqlFlavour, waits, claim, false);
              }
            })
        .build();
  }
}
