package dev.once.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.once.Consumer;
import dev.once.DeadLetterFilter;
import dev.once.Event;
import dev.once.EventId;
import dev.once.Once;
import dev.once.OnceListener;
import dev.once.ReceivedEvent;
import dev.once.Relay;
import dev.once.RetentionPolicy;
import dev.once.RetryPolicy;
import dev.once.spi.Delivery;
import dev.once.spi.InDatabaseAck;
import dev.once.spi.Transport;
import dev.once.test.TestDatabase;
import dev.once.testkit.LaneFaults;
import dev.once.testkit.LaneFaults.Wrapped;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.UnaryOperator;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * An ordered consumer on Kafka whose key's head is dead-lettered: the key parks in Once's database,
 * the key's later records are diverted into its lane ({@code once_queue}) and run from there, in
 * order, after a replay or a discard of the head; every other key flows. Checked as {@code
 * KeyOrderTest} checks: each effect records its key's step, and {@link KeyOrderTest#OUT_OF_ORDER}
 * counts effects that do not follow their key's previous one by exactly one step (a gap, a repeat,
 * a step back).
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

  private static final class Rig implements AutoCloseable {
    final TestDatabase db = TestDatabase.embedded();
    final String dest = PipelineNames.unique("parked");
    final KafkaTransport kafka =
        Broker.transport()
            .maxNackDelay(Duration.ofSeconds(2))
            .leaveAfterIdle(Duration.ofSeconds(1))
            .build();
    final List<AutoCloseable> closing = new ArrayList<>();
    final Once once;
    Relay relay;

    Rig(Transport transport, OnceListener listener, UnaryOperator<DataSource> wrap) {
      db.execute(
          "CREATE TABLE ordered_effect (n bigserial PRIMARY KEY, event_key text, step int"
              + " NOT NULL)");
      once =
          Once.builder()
              .dataSource(wrap == null ? db.dataSource() : wrap.apply(db.dataSource()))
              .transport(transport == null ? kafka : transport)
              .destinations(dest)
              .relayIdleWait(Duration.ofMillis(50))
              .confirmTimeout(Duration.ofSeconds(10))
              .retention(RetentionPolicy.DEFAULT)
              .listener(listener)
              .build();
      closing.add(once);
      closing.add(kafka);
    }

    Consumer consumer(dev.once.Handler handler, boolean ordered) {
      return consumer(handler, ordered, 1);
    }

    Consumer consumer(dev.once.Handler handler, boolean ordered, int maxAttempts) {
      var b =
          once.consumer("warehouse")
              .subscribe(dest, handler)
              .retry(
                  RetryPolicy.builder()
                      .maxAttempts(maxAttempts)
                      .backoff(Duration.ofMillis(1), Duration.ofMillis(5))
                      .build())
              .workers(4)
              .batchSize(8)
              .idleWait(Duration.ofMillis(50))
              .batchLinger(Duration.ZERO);
      Consumer c = (ordered ? b.ordered() : b).build();
      closing.add(0, c);
      return c;
    }

    void publish(int fromStep, int toStep) {
      for (int s = fromStep; s <= toStep; s++) {
        int step = s;
        once.useTransaction(
            tx -> {
              for (int k = 0; k < KEYS; k++) {
                String key = "k" + k;
                tx.publish(Event.of(EventId.of("step", key, step), dest, key, "Step", "{}"));
              }
            });
      }
    }

    void start(Consumer consumer) {
      relay = once.newRelay();
      closing.add(0, relay);
      relay.start();
      consumer.start();
    }

    void await(String what, java.util.concurrent.Callable<Boolean> done) {
      org.awaitility.Awaitility.await(what)
          .atMost(Duration.ofSeconds(90))
          .pollInterval(Duration.ofMillis(20))
          .until(done);
    }

    /** k0 parked behind its head, and its later records all waiting in the lane. */
    void awaitParkedWithLane(int behind) {
      await(
          "k0 parked, " + behind + " in its lane, the other keys done",
          () ->
              count("SELECT count(*) FROM once_parked_key WHERE event_key = 'k0'") == 1
                  && count("SELECT count(*) FROM once_queue WHERE event_key = 'k0'") >= behind
                  && count("SELECT count(*) FROM ordered_effect WHERE event_key <> 'k0'")
                      == (KEYS - 1) * STEPS);
    }

    long count(String sql, Object... params) {
      return db.count(sql, params);
    }

    String stepsOf(String key) {
      try (Connection c = db.dataSource().getConnection();
          var ps =
              c.prepareStatement(
                  "SELECT coalesce(string_agg(step::text, ',' ORDER BY n), '') FROM ordered_effect"
                      + " WHERE event_key = ?")) {
        ps.setString(1, key);
        try (var rs = ps.executeQuery()) {
          rs.next();
          return rs.getString(1);
        }
      } catch (java.sql.SQLException e) {
        throw new IllegalStateException(e);
      }
    }

    long effects() {
      return count("SELECT count(*) FROM ordered_effect");
    }

    long outOfOrder() {
      return count(KeyOrderTest.OUT_OF_ORDER);
    }

    @Override
    public void close() {
      for (AutoCloseable c : closing) {
        try {
          c.close();
        } catch (Exception e) {
          throw new IllegalStateException(e);
        }
      }
      db.close();
    }
  }

  /** Fails {@link #POISON} while {@code poisoned} is set; records every other step. */
  private static dev.once.Handler poisoning(AtomicBoolean poisoned) {
    return (tx, e) -> {
      if (e.id().value().equals(POISON) && poisoned.get()) {
        throw new IllegalStateException("poison");
      }
      KeyOrderTest.record(tx, e);
    };
  }

  private static String steps(int from, int to, int skip) {
    List<String> s = new ArrayList<>();
    for (int i = from; i <= to; i++) {
      if (i != skip) {
        s.add(String.valueOf(i));
      }
    }
    return String.join(",", s);
  }

  @Test
  void aPoisonParksOnlyItsKeyAndAReplayRunsTheHeadFirstThenTheRestInOrder() {
    AtomicBoolean poisoned = new AtomicBoolean(true);
    try (Rig rig = new Rig(null, new OnceListener() {}, null)) {
      Consumer consumer = rig.consumer(poisoning(poisoned), true);
      rig.publish(1, STEPS);
      rig.start(consumer);
      rig.awaitParkedWithLane(STEPS - 4);

      assertThat(rig.stepsOf("k0")).as("k0 stops before its head").isEqualTo("1,2,3");
      assertThat(rig.count("SELECT count(*) FROM once_queue WHERE event_key <> 'k0'"))
          .as("only k0 waits")
          .isZero();
      assertThat(rig.outOfOrder()).isZero();

      poisoned.set(false);
      assertThat(rig.once.deadLetters().replayKey("warehouse", "k0", "test", "fixed")).hasSize(1);
      rig.await("k0 done", () -> rig.effects() == (long) KEYS * STEPS);
      assertThat(rig.stepsOf("k0")).isEqualTo(steps(1, STEPS, 0));

      // the lane is empty: k0's next records run straight from Kafka again
      rig.await("lane empty", () -> rig.count("SELECT count(*) FROM once_queue") == 0);
      rig.publish(STEPS + 1, STEPS + 3);
      rig.await("three more", () -> rig.effects() == (long) KEYS * (STEPS + 3));
      assertThat(rig.stepsOf("k0")).isEqualTo(steps(1, STEPS + 3, 0));
      assertThat(rig.outOfOrder()).as("effects out of key order").isZero();
      assertThat(rig.count("SELECT count(*) FROM once_parked_key")).isZero();
    }
  }

  /**
   * A group that was ordered and is built unordered again keeps its lane: the new consumer drains
   * it, so a replay of the parked head and the records behind it run (in order), instead of waiting
   * in a lane nobody reads.
   */
  @Test
  void aGroupMadeUnorderedStillDrainsTheLaneItWasLeftWith() {
    AtomicBoolean poisoned = new AtomicBoolean(true);
    try (Rig rig = new Rig(null, new OnceListener() {}, null)) {
      Consumer ordered = rig.consumer(poisoning(poisoned), true);
      rig.publish(1, STEPS);
      rig.start(ordered);
      rig.awaitParkedWithLane(STEPS - 4);
      ordered.close();

      poisoned.set(false);
      Consumer unordered = rig.consumer(poisoning(poisoned), false);
      unordered.start();
      assertThat(rig.once.deadLetters().replayKey("warehouse", "k0", "test", "fixed")).hasSize(1);
      rig.await("k0 done", () -> rig.effects() == (long) KEYS * STEPS);
      assertThat(rig.stepsOf("k0")).isEqualTo(steps(1, STEPS, 0));
      assertThat(rig.count("SELECT count(*) FROM once_queue")).isZero();
      assertThat(rig.count("SELECT count(*) FROM once_parked_key")).isZero();
    }
  }

  @Test
  void aDiscardOfTheHeadReleasesTheRestInOrder() {
    try (Rig rig = new Rig(null, new OnceListener() {}, null)) {
      Consumer consumer = rig.consumer(poisoning(new AtomicBoolean(true)), true);
      rig.publish(1, STEPS);
      rig.start(consumer);
      rig.awaitParkedWithLane(STEPS - 4);

      assertThat(
              rig.once
                  .deadLetters()
                  .discard(DeadLetterFilter.open().event(POISON), "test", "obsolete"))
          .hasSize(1);
      rig.await("k0 released", () -> rig.effects() == (long) KEYS * STEPS - 1);
      assertThat(rig.stepsOf("k0")).isEqualTo(steps(1, STEPS, 4));
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
  @Test
  void crashesInEveryWindowOfTheLaneLoseNothingRepeatNothingAndKeepOrder() {
    AtomicBoolean poisoned = new AtomicBoolean(true);
    AtomicInteger crashed = new AtomicInteger();
    java.util.concurrent.atomic.AtomicReference<TestDatabase> db =
        new java.util.concurrent.atomic.AtomicReference<>();
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
                && db.get()
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
    KafkaTransport kafka = Broker.transport().maxNackDelay(Duration.ofSeconds(2)).build();
    try (Rig rig =
        new Rig(new Wrapped(kafka, r -> LaneFaults.dyingOnAckOf(r, dying)), crashes, null)) {
      rig.closing.add(kafka);
      db.set(rig.db);
      Consumer consumer = rig.consumer(poisoning(poisoned), true, 3);
      rig.publish(1, STEPS);
      rig.start(consumer);
      rig.awaitParkedWithLane(STEPS - 4);
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
      rig.once.deadLetters().replayKey("warehouse", "k0", "test", "fixed");
      rig.await("lane empty", () -> rig.count("SELECT count(*) FROM once_queue") == 0);

      assertThat(crashed.get()).as("crashed twice in the drain").isEqualTo(4);
      assertThat(rig.stepsOf("k0")).isEqualTo(steps(1, STEPS, 0));
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
  @Test
  void twoProcessesShareTheLaneAndKeepTheKeysOrderThroughCrashes() {
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
    try (Rig rig = new Rig(null, crashes, null)) {
      KafkaTransport second =
          Broker.transport()
              .maxNackDelay(Duration.ofSeconds(2))
              .leaveAfterIdle(Duration.ofSeconds(1))
              .build();
      Once other =
          Once.builder()
              .dataSource(rig.db.dataSource())
              .transport(second)
              .destinations(rig.dest)
              .confirmTimeout(Duration.ofSeconds(10))
              .retention(RetentionPolicy.DEFAULT)
              .listener(crashes)
              .build();
      rig.closing.add(second);
      rig.closing.add(0, other);
      Consumer first = rig.consumer(poisoning(poisoned), true, 3);
      Consumer alsoFirst =
          other
              .consumer("warehouse")
              .subscribe(rig.dest, poisoning(poisoned))
              .retry(
                  RetryPolicy.builder()
                      .maxAttempts(3)
                      .backoff(Duration.ofMillis(1), Duration.ofMillis(5))
                      .build())
              .workers(2)
              .batchSize(8)
              .idleWait(Duration.ofMillis(50))
              .batchLinger(Duration.ZERO)
              .ordered()
              .build();
      rig.closing.add(0, alsoFirst);
      alsoFirst.start();
      rig.publish(1, STEPS);
      rig.start(first);
      rig.awaitParkedWithLane(STEPS - 4);
      assertThat(rig.stepsOf("k0")).isEqualTo("1,2,3");

      poisoned.set(false);
      rig.once.deadLetters().replayKey("warehouse", "k0", "test", "fixed");
      rig.await("k0 done", () -> rig.effects() == (long) KEYS * STEPS);
      rig.await("lane empty", () -> rig.count("SELECT count(*) FROM once_queue") == 0);
      rig.publish(STEPS + 1, STEPS + 2);
      rig.await("two more", () -> rig.effects() == (long) KEYS * (STEPS + 2));

      assertThat(batches.get()).as("crashes happened").isGreaterThanOrEqualTo(7);
      assertThat(rig.stepsOf("k0")).isEqualTo(steps(1, STEPS + 2, 0));
      assertThat(rig.outOfOrder()).as("out of order, repeated or lost").isZero();
    }
  }

  @Test
  void anOrderedConsumerOnKafkaIsRefusedWhereOncesDatabaseIsMariaDb() {
    try (TestDatabase db = TestDatabase.mariadb();
        KafkaTransport kafka = Broker.transport().build()) {
      String dest = PipelineNames.unique("refused");
      Once once = Flow.once(db, kafka, dest);
      org.assertj.core.api.Assertions.assertThatThrownBy(
              () -> once.consumer("warehouse").subscribe(dest, (tx, e) -> {}).ordered().build())
          .isInstanceOf(dev.once.ConfigurationException.class)
          .hasMessageContaining("consumer.ordered")
          .hasMessageContaining("kafka");
      once.close();
    }
  }

  /** The broken twin: no lane, so the dead head's key runs on. The checker catches it. */
  @Test
  void theCheckerCatchesAnOrderedConsumerWithoutItsLane() {
    KafkaTransport kafka = Broker.transport().maxNackDelay(Duration.ofSeconds(2)).build();
    try (Rig rig = new Rig(new WithoutLane(kafka), new OnceListener() {}, null)) {
      rig.closing.add(kafka);
      Consumer consumer = rig.consumer(poisoning(new AtomicBoolean(true)), true);
      rig.publish(1, STEPS);
      rig.start(consumer);
      rig.await("all but the poison", () -> rig.effects() == (long) KEYS * STEPS - 1);
      assertThat(rig.outOfOrder()).as("k0 ran past its dead head").isPositive();
    }
  }

  /**
   * The lane check is one statement per batch on the ordered path (a batch of fresh deliveries is
   * one group here: no poison, no crash), none on the unordered one.
   */
  @Test
  void theLaneCheckIsOneStatementPerBatchOrderedAndNoneUnordered() {
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
      try (Rig rig = new Rig(null, groups, ds -> counting(ds, checks))) {
        Consumer consumer = rig.consumer((tx, e) -> KeyOrderTest.record(tx, e), ordered);
        rig.publish(1, STEPS);
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

  /** {@code dataSource}, counting the statements that read the parked keys. */
  private static DataSource counting(DataSource dataSource, AtomicLong checks) {
    return (DataSource)
        Proxy.newProxyInstance(
            DataSource.class.getClassLoader(),
            new Class<?>[] {DataSource.class},
            (p, m, args) -> {
              Object out = m.invoke(dataSource, args);
              return out instanceof Connection c ? countingConnection(c, checks) : out;
            });
  }

  private static Connection countingConnection(Connection c, AtomicLong checks) {
    return (Connection)
        Proxy.newProxyInstance(
            Connection.class.getClassLoader(),
            new Class<?>[] {Connection.class},
            (p, m, args) -> {
              if (m.getName().startsWith("prepare")
                  && args[0] instanceof String sql
                  && sql.contains("FROM once_parked_key p")
                  && sql.contains("UNION ALL")) {
                checks.incrementAndGet();
              }
              try {
                return m.invoke(c, args);
              } catch (java.lang.reflect.InvocationTargetException e) {
                throw e.getCause();
              }
            });
  }
}
