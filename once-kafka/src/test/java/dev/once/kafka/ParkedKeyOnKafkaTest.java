package dev.once.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.once.ConfigurationException;
import dev.once.Consumer;
import dev.once.DeadLetterFilter;
import dev.once.Handler;
import dev.once.Once;
import dev.once.OnceListener;
import dev.once.ReceivedEvent;
import dev.once.RetentionPolicy;
import dev.once.jdbc.Dialects;
import dev.once.jdbc.JdbcDialect;
import dev.once.jdbc.JdbcQueue;
import dev.once.spi.Delivery;
import dev.once.spi.InDatabaseAck;
import dev.once.spi.Transport;
import dev.once.test.TestDatabase;
import dev.once.testkit.KeyOrderRig;
import dev.once.testkit.LaneFaults;
import dev.once.testkit.LaneFaults.LaneWrites;
import dev.once.testkit.LaneFaults.Wrapped;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * An ordered consumer on Kafka whose key's head is dead-lettered: the key parks in Once's database,
 * the key's later records are diverted into its lane ({@code once_queue}) and run from there, in
 * order, after a replay or a discard of the head; every other key flows. Each run goes on both of
 * Once's databases (PostgreSQL, and the local MariaDB: {@code mariaDb = true}). Checked with
 * testkit's {@link KeyOrderRig}: each effect records its key's step, and {@link
 * KeyOrderRig#OUT_OF_ORDER} counts effects that do not follow their key's previous one by exactly
 * one step (a gap, a repeat, a step back).
 */
class ParkedKeyOnKafkaTest {
  private static final int KEYS = 6;
  private static final int STEPS = 12;
  private static final String POISON = "step:k0:4";

  /** The broken twin: claims to park keys itself, so no lane is made. */
  private static final class WithoutLane extends Wrapped implements InDatabaseAck {
    WithoutLane(Transport kafka) {
      super(kafka, r -> r);
    }

    @Override
    public boolean acksIn(DataSource dataSource) {
      return false;
    }

    @Override
    public void ackInTransaction(
        Connection c, String destination, String consumerId, List<Delivery> deliveries) {
      throw new AssertionError("never called: acksIn is false");
    }
  }

  /** k0 parked behind its head, and its later records all waiting in the lane. */
  private static void awaitParkedWithLane(KafkaOrderedRig rig, int behind) {
    rig.await(
        "k0 parked, " + behind + " in its lane, the other keys done",
        () ->
            rig.count("SELECT count(*) FROM once_parked_key WHERE event_key = 'k0'") == 1
                && rig.count("SELECT count(*) FROM once_queue WHERE event_key = 'k0'") >= behind
                && rig.count("SELECT count(*) FROM ordered_effect WHERE event_key <> 'k0'")
                    == (KEYS - 1) * STEPS);
  }

  /** Fails {@link #POISON} while {@code poisoned} is set; records every other step. */
  private static Handler poisoning(AtomicBoolean poisoned) {
    return (tx, e) -> {
      if (e.id().value().equals(POISON) && poisoned.get()) {
        throw new IllegalStateException("poison");
      }
      KeyOrderRig.record(tx, e);
    };
  }

  /**
   * Also counted: a divert is one transaction of two statements (the lane check and the insert),
   * whose insert is sent once for the batch on PostgreSQL and once per record on MariaDB (which
   * cannot send an INSERT … SELECT as a bulk batch); a park takes the head's place in the park's
   * statement on PostgreSQL, from a placeholder row on MariaDB (two statements more).
   */
  @ParameterizedTest(name = "mariaDb={0}")
  @ValueSource(booleans = {false, true})
  void aPoisonParksOnlyItsKeyAndAReplayRunsTheHeadFirstThenTheRestInOrder(boolean mariaDb) {
    AtomicBoolean poisoned = new AtomicBoolean(true);
    LaneWrites writes = new LaneWrites();
    AtomicLong parks = new AtomicLong();
    AtomicLong placeholders = new AtomicLong();
    try (KafkaOrderedRig rig =
        KafkaOrderedRig.on(
            mariaDb,
            new OnceListener() {},
            t -> t,
            ds ->
                counting(
                    writes.counting(ds),
                    new Counted(ParkedKeyOnKafkaTest::isPark, parks),
                    new Counted(
                        sql -> sql.contains("INSERT INTO once_queue") && sql.contains("NULL"),
                        placeholders)))) {
      Consumer consumer = rig.consumer(poisoning(poisoned), true, 1);
      rig.publish(KEYS, 1, STEPS);
      rig.start(consumer);
      awaitParkedWithLane(rig, STEPS - 4);

      assertThat(rig.stepsOf("k0")).as("k0 stops before its head").isEqualTo("1,2,3");
      assertThat(rig.count("SELECT count(*) FROM once_queue WHERE event_key <> 'k0'"))
          .as("only k0 waits")
          .isZero();
      assertThat(rig.outOfOrder()).isZero();
      assertThat(parks.get()).as("one park").isOne();
      assertThat(placeholders.get()).as("placeholder rows").isEqualTo(mariaDb ? 1 : 0);
      assertThat(writes.transactions()).as("diverts").isPositive();
      assertThat(writes.statements()).as("statements").isEqualTo(2 * writes.transactions());
      assertThat(writes.commits()).as("commits").isEqualTo(writes.transactions());
      assertThat(writes.executions())
          .as("statements sent")
          .isEqualTo(mariaDb ? writes.transactions() + (STEPS - 4) : 2 * writes.transactions());

      poisoned.set(false);
      assertThat(rig.once().deadLetters().replayKey("warehouse", "k0", "test", "fixed")).hasSize(1);
      rig.await("k0 done", () -> rig.effects() == (long) KEYS * STEPS);
      assertThat(rig.stepsOf("k0")).isEqualTo(KeyOrderRig.steps(1, STEPS, 0));

      // the lane is empty: k0's next records run straight from Kafka again
      rig.await("lane empty", () -> rig.count("SELECT count(*) FROM once_queue") == 0);
      rig.publish(KEYS, STEPS + 1, STEPS + 3);
      rig.await("three more", () -> rig.effects() == (long) KEYS * (STEPS + 3));
      assertThat(rig.stepsOf("k0")).isEqualTo(KeyOrderRig.steps(1, STEPS + 3, 0));
      assertThat(rig.outOfOrder()).as("effects out of key order").isZero();
      assertThat(rig.count("SELECT count(*) FROM once_parked_key")).isZero();
    }
  }

  /**
   * A group that was ordered and is built unordered again keeps its lane: the new consumer drains
   * it, so a replay of the parked head and the records behind it run (in order), instead of waiting
   * in a lane nobody reads.
   */
  @ParameterizedTest(name = "mariaDb={0}")
  @ValueSource(booleans = {false, true})
  void aGroupMadeUnorderedStillDrainsTheLaneItWasLeftWith(boolean mariaDb) {
    AtomicBoolean poisoned = new AtomicBoolean(true);
    try (KafkaOrderedRig rig = KafkaOrderedRig.on(mariaDb, new OnceListener() {})) {
      Consumer ordered = rig.consumer(poisoning(poisoned), true, 1);
      rig.publish(KEYS, 1, STEPS);
      rig.start(ordered);
      awaitParkedWithLane(rig, STEPS - 4);
      ordered.close();

      poisoned.set(false);
      Consumer unordered = rig.consumer(poisoning(poisoned), false, 1);
      unordered.start();
      assertThat(rig.once().deadLetters().replayKey("warehouse", "k0", "test", "fixed")).hasSize(1);
      rig.await("k0 done", () -> rig.effects() == (long) KEYS * STEPS);
      assertThat(rig.stepsOf("k0")).isEqualTo(KeyOrderRig.steps(1, STEPS, 0));
      assertThat(rig.count("SELECT count(*) FROM once_queue")).isZero();
      assertThat(rig.count("SELECT count(*) FROM once_parked_key")).isZero();
    }
  }

  @ParameterizedTest(name = "mariaDb={0}")
  @ValueSource(booleans = {false, true})
  void aDiscardOfTheHeadReleasesTheRestInOrder(boolean mariaDb) {
    try (KafkaOrderedRig rig = KafkaOrderedRig.on(mariaDb, new OnceListener() {})) {
      Consumer consumer = rig.consumer(poisoning(new AtomicBoolean(true)), true, 1);
      rig.publish(KEYS, 1, STEPS);
      rig.start(consumer);
      awaitParkedWithLane(rig, STEPS - 4);

      assertThat(
              rig.once()
                  .deadLetters()
                  .discard(DeadLetterFilter.open().event(POISON), "test", "obsolete"))
          .hasSize(1);
      rig.await("k0 released", () -> rig.effects() == (long) KEYS * STEPS - 1);
      assertThat(rig.stepsOf("k0")).isEqualTo(KeyOrderRig.steps(1, STEPS, 4));
      assertThat(rig.count("SELECT count(*) FROM once_queue")).isZero();
      assertThat(rig.count("SELECT count(*) FROM once_parked_key")).isZero();
    }
  }

  /**
   * Crashes in each window of the lane: before the dead letter's commit (the head comes back and is
   * dead-lettered then); after that commit, which parked its key, before the ack (the head comes
   * back and is acknowledged as dead, its key still parked); after a divert's commit before its
   * ack, twice (the record comes back and is diverted again: its second lane row is a DUPLICATE);
   * and in the drain, before a lane row's commit and after it.
   */
  @ParameterizedTest(name = "mariaDb={0}")
  @ValueSource(booleans = {false, true})
  void crashesInEveryWindowOfTheLaneLoseNothingRepeatNothingAndKeepOrder(boolean mariaDb) {
    AtomicBoolean poisoned = new AtomicBoolean(true);
    AtomicInteger crashed = new AtomicInteger();
    AtomicReference<KafkaOrderedRig> rigRef = new AtomicReference<>();
    Set<String> dying = ConcurrentHashMap.newKeySet();
    dying.addAll(List.of("step:k0:6", "step:k0:9"));
    OnceListener crashes =
        new OnceListener() {
          @Override
          public void handlerFailed(ReceivedEvent e, Throwable error) {
            if (e.id().value().equals(POISON) && crashed.compareAndSet(0, 1)) {
              throw new Error("simulated crash before the dead letter's commit");
            }
          }

          @Override
          public void committed(List<ReceivedEvent> events) {
            if (has(events, POISON)
                && rigRef
                        .get()
                        .count(
                            "SELECT count(*) FROM once_dead_letter WHERE status = 'dead'"
                                + " AND event_id = ?",
                            POISON)
                    == 1
                && crashed.compareAndSet(1, 2)) {
              throw new Error("simulated crash after the dead letter's commit, before the ack");
            }
            if (has(events, "step:k0:8") && crashed.compareAndSet(3, 4)) {
              throw new Error("simulated crash in the drain, after the commit");
            }
          }

          @Override
          public void handled(ReceivedEvent e) {
            if (e.id().value().equals("step:k0:6") && crashed.compareAndSet(2, 3)) {
              throw new Error("simulated crash in the drain, before the commit");
            }
          }
        };
    try (KafkaOrderedRig rig =
        KafkaOrderedRig.on(
            mariaDb,
            crashes,
            t -> new Wrapped(t, r -> LaneFaults.dyingOnAckOf(r, dying)),
            ds -> ds)) {
      rigRef.set(rig);
      Consumer consumer = rig.consumer(poisoning(poisoned), true, 3);
      rig.publish(KEYS, 1, STEPS);
      rig.start(consumer);
      awaitParkedWithLane(rig, STEPS - 4);
      assertThat(rig.stepsOf("k0")).isEqualTo("1,2,3");
      assertThat(crashed.get()).as("crashed before and after the park's commit").isEqualTo(2);
      assertThat(dying).as("both crashed after their divert's commit").isEmpty();
      assertThat(rig.count("SELECT count(*) FROM once_queue WHERE event_key = 'k0'"))
          .as("two records diverted twice")
          .isEqualTo(STEPS - 4 + 2);
      assertThat(
              rig.count(
                  "SELECT count(*) FROM once_dead_letter WHERE status = 'dead' AND event_id = ?",
                  POISON))
          .isOne();

      poisoned.set(false);
      rig.once().deadLetters().replayKey("warehouse", "k0", "test", "fixed");
      rig.await("lane empty", () -> rig.count("SELECT count(*) FROM once_queue") == 0);

      assertThat(crashed.get()).as("crashed twice in the drain").isEqualTo(4);
      assertThat(rig.stepsOf("k0")).isEqualTo(KeyOrderRig.steps(1, STEPS, 0));
      assertThat(rig.outOfOrder()).as("out of order, repeated or lost").isZero();
      assertThat(rig.effects()).isEqualTo((long) KEYS * STEPS);
    }
  }

  private static boolean has(List<ReceivedEvent> events, String id) {
    return events.stream().anyMatch(e -> e.id().value().equals(id));
  }

  /**
   * Two processes (a Once and a Kafka transport each, one group): the poisoned key's records are
   * diverted by whichever member owns its partition, both members' lanes claim the key's rows, a
   * worker of each dies after a commit and before its ack now and then; after the replay the key's
   * effects are still in order, once each.
   */
  @ParameterizedTest(name = "mariaDb={0}")
  @ValueSource(booleans = {false, true})
  void twoProcessesShareTheLaneAndKeepTheKeysOrderThroughCrashes(boolean mariaDb) {
    AtomicBoolean poisoned = new AtomicBoolean(true);
    AtomicInteger batches = new AtomicInteger();
    OnceListener crashes =
        new OnceListener() {
          @Override
          public void committed(List<ReceivedEvent> events) {
            if (batches.incrementAndGet() % 7 == 0) {
              throw new Error("simulated crash after commit, before ack");
            }
          }
        };
    try (KafkaOrderedRig rig = KafkaOrderedRig.on(mariaDb, crashes)) {
      Once other = rig.join();
      Consumer first = rig.consumer(poisoning(poisoned), true, 3);
      Consumer alsoFirst =
          rig.closing(
              rig.consumer(other, poisoning(poisoned), KeyOrderRig.fast(3)).workers(2).build());
      alsoFirst.start();
      rig.publish(KEYS, 1, STEPS);
      rig.start(first);
      awaitParkedWithLane(rig, STEPS - 4);
      assertThat(rig.stepsOf("k0")).isEqualTo("1,2,3");

      poisoned.set(false);
      rig.once().deadLetters().replayKey("warehouse", "k0", "test", "fixed");
      rig.await("k0 done", () -> rig.effects() == (long) KEYS * STEPS);
      rig.await("lane empty", () -> rig.count("SELECT count(*) FROM once_queue") == 0);
      rig.publish(KEYS, STEPS + 1, STEPS + 2);
      rig.await("two more", () -> rig.effects() == (long) KEYS * (STEPS + 2));

      assertThat(batches.get()).as("crashes happened").isGreaterThanOrEqualTo(7);
      assertThat(rig.stepsOf("k0")).isEqualTo(KeyOrderRig.steps(1, STEPS + 2, 0));
      assertThat(rig.outOfOrder()).as("out of order, repeated or lost").isZero();
    }
  }

  /**
   * A database whose queue dialect keeps no key lanes (here PostgreSQL's flavour over a queue that
   * says so) refuses an ordered consumer on Kafka when it is built, naming the setting, the
   * transport and the database.
   */
  @Test
  void anOrderedConsumerOnKafkaIsRefusedWhereOncesDatabaseKeepsNoLanes() {
    try (TestDatabase db = TestDatabase.embedded();
        KafkaTransport kafka = Broker.transport().build()) {
      String dest = PipelineNames.unique("refused");
      var flavour = Dialects.postgresql().flavour();
      try (Once once =
          Once.builder()
              .dataSource(db.dataSource())
              .dialect(
                  JdbcDialect.builder(flavour)
                      .queue(
                          new JdbcQueue(flavour) {
                            @Override
                            public boolean keepsLanes() {
                              return false;
                            }
                          })
                      .build())
              .transport(kafka)
              .destinations(dest)
              .retention(RetentionPolicy.DEFAULT)
              .build()) {
        assertThatThrownBy(
                () -> once.consumer("warehouse").subscribe(dest, (tx, e) -> {}).ordered().build())
            .isInstanceOf(ConfigurationException.class)
            .hasMessageContaining("consumer.ordered")
            .hasMessageContaining("kafka")
            .hasMessageContaining("postgresql has no lane");
      }
    }
  }

  /** The broken twin: no lane, so the dead head's key runs on. The checker catches it. */
  @ParameterizedTest(name = "mariaDb={0}")
  @ValueSource(booleans = {false, true})
  void theCheckerCatchesAnOrderedConsumerWithoutItsLane(boolean mariaDb) {
    try (KafkaOrderedRig rig =
        KafkaOrderedRig.on(mariaDb, new OnceListener() {}, WithoutLane::new, ds -> ds)) {
      Consumer consumer = rig.consumer(poisoning(new AtomicBoolean(true)), true, 1);
      rig.publish(KEYS, 1, STEPS);
      rig.start(consumer);
      rig.await("all but the poison", () -> rig.effects() == (long) KEYS * STEPS - 1);
      assertThat(rig.outOfOrder()).as("k0 ran past its dead head").isPositive();
    }
  }

  /**
   * The lane check is one statement per batch on the ordered path (a batch of fresh deliveries is
   * one group here: no poison, no crash), none on the unordered one.
   */
  @ParameterizedTest(name = "mariaDb={0}")
  @ValueSource(booleans = {false, true})
  void theLaneCheckIsOneStatementPerBatchOrderedAndNoneUnordered(boolean mariaDb) {
    for (boolean ordered : new boolean[] {true, false}) {
      AtomicLong checks = new AtomicLong();
      AtomicLong batches = new AtomicLong();
      OnceListener groups =
          new OnceListener() {
            @Override
            public void received(List<ReceivedEvent> events) {
              batches.incrementAndGet();
            }
          };
      try (KafkaOrderedRig rig =
          KafkaOrderedRig.on(
              mariaDb,
              groups,
              t -> t,
              ds -> counting(ds, new Counted(ParkedKeyOnKafkaTest::isLaneCheck, checks)))) {
        Consumer consumer = rig.consumer(KeyOrderRig::record, ordered, 1);
        rig.publish(KEYS, 1, STEPS);
        rig.start(consumer);
        rig.await("all", () -> rig.effects() == (long) KEYS * STEPS);
        consumer.close();
        if (ordered) {
          assertThat(checks.get()).as("lane checks = batches").isEqualTo(batches.get());
          assertThat(batches.get()).isPositive();
        } else {
          assertThat(checks.get()).as("no lane check unordered").isZero();
        }
      }
    }
  }

  /** The park of a broker's head (not the lane's ordered ack, which parks by a join). */
  private static boolean isPark(String sql) {
    return sql.contains("INSERT INTO once_parked_key")
        && (sql.contains("VALUES") || sql.contains("nextval"));
  }

  private static boolean isLaneCheck(String sql) {
    return sql.contains("FROM once_parked_key p") && sql.contains("UNION ALL");
  }

  /** Statements prepared that {@code sql} matches, counted in {@code n}. */
  private record Counted(Predicate<String> sql, AtomicLong n) {}

  /** {@code dataSource}, counting the statements its connections prepare. */
  private static DataSource counting(DataSource dataSource, Counted... counts) {
    return (DataSource)
        Proxy.newProxyInstance(
            DataSource.class.getClassLoader(),
            new Class<?>[] {DataSource.class},
            (p, m, args) -> {
              Object out = invoke(m, dataSource, args);
              return out instanceof Connection c ? countingConnection(c, counts) : out;
            });
  }

  private static Connection countingConnection(Connection c, Counted... counts) {
    return (Connection)
        Proxy.newProxyInstance(
            Connection.class.getClassLoader(),
            new Class<?>[] {Connection.class},
            (p, m, args) -> {
              if (m.getName().startsWith("prepare") && args[0] instanceof String sql) {
                for (Counted counted : counts) {
                  if (counted.sql().test(sql)) {
                    counted.n().incrementAndGet();
                  }
                }
              }
              return invoke(m, c, args);
            });
  }

  private static Object invoke(java.lang.reflect.Method m, Object target, Object[] args)
      throws Throwable {
    try {
      return m.invoke(target, args);
    } catch (java.lang.reflect.InvocationTargetException e) {
      throw e.getCause();
    }
  }
}
