package dev.once.sqs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.once.ConfigurationException;
import dev.once.Consumer;
import dev.once.Once;
import dev.once.OnceListener;
import dev.once.ReceivedEvent;
import dev.once.RetryPolicy;
import dev.once.spi.Delivery;
import dev.once.spi.QueueOrder;
import dev.once.spi.Receiver;
import dev.once.spi.Transport;
import dev.once.test.TestDatabase;
import dev.once.testkit.KeyOrderContract;
import dev.once.testkit.KeyOrderRig;
import dev.once.testkit.LaneFaults.Passing;
import dev.once.testkit.LaneFaults.Unordered;
import dev.once.testkit.LaneFaults.Wrapped;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import java.util.function.UnaryOperator;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * An ordered consumer on SQS FIFO queues (docs/ORDERING.md, "Ordered on SQS FIFO"), on ElasticMQ in
 * the test JVM and the embedded PostgreSQL: every receiver writes what it receives into the key
 * lane in Once's database and deletes it after that commit; FIFO hands out none of a key's (message
 * group's) later messages while an earlier one is in flight, so they reach the lane in order; the
 * consumer's workers run the lane with the table queue's ordered claim. Checked as the table
 * queue's ordered consumer is: each effect records its key's step in the handler's transaction, and
 * {@link OrderedRig#OUT_OF_ORDER} counts the effects that do not follow their key's previous one by
 * exactly one step. The runs every such transport passes are {@link KeyOrderContract}'s; here are
 * SQS FIFO's own.
 */
class KeyOrderOnSqsFifoTest extends KeyOrderContract {

  /**
   * A receiver slow to write k0's step 2 into the lane: the first time a receive brings it, that
   * receive's messages of k0 from step 2 on are kept from the consumer (SQS's receiver still holds
   * them, invisible, their visibility renewed) until {@code release} says so, then handed on, in
   * order, ahead of what is received next. With {@code deleteAtOnce} it deletes them as it takes
   * them, before any lane commit (the broken twin).
   */
  static final class Withholding {
    final boolean deleteAtOnce;
    final List<Delivery> held = new ArrayList<>();
    final AtomicBoolean taken = new AtomicBoolean();
    final AtomicBoolean released = new AtomicBoolean();
    volatile BooleanSupplier release = () -> false;

    Withholding(boolean deleteAtOnce) {
      this.deleteAtOnce = deleteAtOnce;
    }

    private static boolean fromK0Step2(Delivery d) {
      return !d.isMalformed() && "k0".equals(d.event().key()) && OrderedRig.step(d.event()) >= 2;
    }

    Receiver wrap(Receiver r) {
      return new Passing(r) {
        @Override
        public List<Delivery> poll(int max, Duration wait, Duration linger)
            throws InterruptedException {
          List<Delivery> got = new ArrayList<>(super.poll(max, wait, linger));
          synchronized (held) {
            if (got.stream().anyMatch(d -> fromK0Step2(d) && OrderedRig.step(d.event()) == 2)
                && taken.compareAndSet(false, true)) {
              got.stream().filter(Withholding::fromK0Step2).forEach(held::add);
              got.removeAll(held);
              if (deleteAtOnce) {
                super.ack(List.copyOf(held));
              }
            }
            if (!held.isEmpty() && release.getAsBoolean()) {
              got.addAll(0, held);
              held.clear();
              released.set(true);
            }
          }
          return got;
        }
      };
    }
  }

  @Override
  protected KeyOrderRig newRig(
      boolean mariaDb,
      OnceListener listener,
      UnaryOperator<Transport> wrap,
      UnaryOperator<DataSource> onceDataSource) {
    TestDatabase db = mariaDb ? TestDatabase.mariadb() : TestDatabase.embedded();
    return new OrderedRig(db, true, listener, wrap, onceDataSource.apply(db.dataSource()))
        .owning(db);
  }

  @Override
  protected long leftInBroker(KeyOrderRig rig) {
    return ((OrderedRig) rig).leftInSqs();
  }

  /**
   * What the twins below break, kept: while a receiver holds k0's step 2 back, FIFO hands out none
   * of k0's later steps, so none runs; the other keys finish meanwhile. Released, k0 runs in order.
   */
  @Test
  void aFifoGroupGivesOutNoLaterStepWhileAnEarlierOneIsHeld() {
    Withholding step2 = new Withholding(false);
    try (TestDatabase db = TestDatabase.embedded();
        OrderedRig rig =
            new OrderedRig(
                db, true, new OnceListener() {}, t -> new Wrapped(t, step2::wrap), null)) {
      AtomicReference<String> k0AtRelease = new AtomicReference<>();
      step2.release =
          () -> {
            if (rig.effects() < (long) (KEYS - 1) * STEPS + 1) {
              return false;
            }
            k0AtRelease.set(rig.stepsOf("k0"));
            return true;
          };
      Consumer consumer = rig.consumer(rig.once(), OrderedRig::record, OrderedRig.fast(5)).build();
      rig.closing(consumer);
      rig.publish(KEYS, 1, STEPS);
      consumer.start();
      rig.startRelay();
      rig.await("all effects", () -> rig.effects() >= (long) KEYS * STEPS);

      assertThat(step2.released).isTrue();
      assertThat(k0AtRelease.get()).as("k0's effects while step 2 was held").isEqualTo("1");
      assertThat(rig.stepsOf("k0")).isEqualTo(OrderedRig.steps(1, STEPS, 0));
      assertThat(rig.outOfOrder()).isZero();
    }
  }

  /**
   * The broken twin of the delete after the lane's commit: a receiver that deletes k0's step 2 as
   * it receives it, and writes it into the lane only once a later step of k0 has taken effect. The
   * delete lets FIFO hand out k0's later steps; they run first, and the checker sees it.
   */
  @Test
  void theCheckerCatchesADeleteBeforeTheLaneCommit() {
    Withholding step2 = new Withholding(true);
    try (TestDatabase db = TestDatabase.embedded();
        OrderedRig rig =
            new OrderedRig(
                db, true, new OnceListener() {}, t -> new Wrapped(t, step2::wrap), null)) {
      step2.release = laterStepOfK0(rig);
      runTwin(rig, step2);
    }
  }

  /**
   * The broken twin of the refusal on standard queues: a standard queue forced to feed the lane. A
   * receiver that holds k0's step 2 back (without deleting it) does not hold back k0's later steps
   * there, which every receive may hand out; they run first, and the checker sees it.
   */
  @Test
  void theCheckerCatchesAStandardQueueFeedingTheLane() {
    Withholding step2 = new Withholding(false);
    try (TestDatabase db = TestDatabase.embedded();
        OrderedRig rig =
            new OrderedRig(
                db, false, new OnceListener() {}, t -> new Unordered(t, step2::wrap), null)) {
      step2.release = laterStepOfK0(rig);
      runTwin(rig, step2);
    }
  }

  private static BooleanSupplier laterStepOfK0(OrderedRig rig) {
    return () ->
        rig.count("SELECT count(*) FROM ordered_effect WHERE event_key = 'k0' AND step > 2") > 0;
  }

  private static void runTwin(OrderedRig rig, Withholding step2) {
    Consumer consumer = rig.consumer(rig.once(), OrderedRig::record, OrderedRig.fast(5)).build();
    rig.closing(consumer);
    rig.publish(KEYS, 1, STEPS);
    consumer.start();
    rig.startRelay();
    rig.await("all effects", () -> rig.effects() >= (long) KEYS * STEPS);

    assertThat(step2.released).isTrue();
    assertThat(rig.outOfOrder()).as("k0's later steps overtook step 2").isPositive();
  }

  /**
   * Two processes (a Once and an SQS transport each) share the group: both receivers feed the lane
   * at once (FIFO hands a key's messages to one of them at a time), the workers of both run it, a
   * worker of each dies after a commit now and then. Halfway the first process stops, giving back
   * what it held: the second takes the rest. Every key's effects stay in order, once each.
   */
  @Test
  void twoProcessesFeedAndRunTheLaneAndOneStoppingKeepsTheOrder() {
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
    Set<String> fedBy = ConcurrentHashMap.newKeySet();
    AtomicInteger members = new AtomicInteger();
    int keys = 10;
    int steps = 40;
    try (TestDatabase db = TestDatabase.embedded();
        OrderedRig rig =
            new OrderedRig(
                db,
                true,
                crashes,
                t -> {
                  String member = "member-" + members.incrementAndGet();
                  return new Wrapped(
                      t,
                      r ->
                          new Passing(r) {
                            @Override
                            public void ack(List<Delivery> deliveries) {
                              fedBy.add(member);
                              super.ack(deliveries);
                            }
                          });
                },
                null)) {
      Once second = rig.join();
      Consumer first =
          rig.consumer(rig.once(), OrderedRig.failingFirstAttempts(), OrderedRig.fast(5))
              .workers(2)
              .build();
      Consumer other =
          rig.consumer(second, OrderedRig.failingFirstAttempts(), OrderedRig.fast(5))
              .workers(2)
              .build();
      rig.closing(other);
      first.start();
      rig.startRelay();
      rig.publish(keys, 1, steps / 2);
      rig.await("a quarter", () -> rig.effects() >= (long) keys * steps / 4);
      other.start();
      rig.await("a third", () -> rig.effects() >= (long) keys * steps / 3);
      first.close();
      rig.publish(keys, steps / 2 + 1, steps);
      rig.await("all effects", () -> rig.effects() >= (long) keys * steps);
      rig.await("lane empty", () -> rig.count("SELECT count(*) FROM once_queue") == 0);
      rig.await("nothing left in SQS", () -> rig.leftInSqs() == 0);

      assertThat(fedBy)
          .as("the first fed the lane alone, the second took the second half")
          .containsExactlyInAnyOrder("member-1", "member-2");
      assertThat(batches.get()).as("crashes happened").isGreaterThanOrEqualTo(7);
      assertThat(rig.effects()).as("one effect per event").isEqualTo((long) keys * steps);
      assertThat(rig.outOfOrder()).as("out of order, repeated or lost").isZero();
    }
  }

  /**
   * A message that does not decode, in k0's message group ahead of k0's events, is dead-lettered by
   * the receiver (never put into the lane) and holds nothing back; an event without a key goes
   * through the lane and runs as unordered.
   */
  @Test
  void anUnreadableMessageIsDeadLetteredAndAKeylessEventRuns() {
    try (TestDatabase db = TestDatabase.embedded();
        OrderedRig rig = new OrderedRig(db, true, new OnceListener() {}, t -> t, null)) {
      Consumer consumer = rig.consumer(rig.once(), OrderedRig::record, OrderedRig.fast(3)).build();
      rig.closing(consumer);
      String url = rig.queueUrl();
      rig.sqs
          .client()
          .sendMessage(
              b ->
                  b.queueUrl(url)
                      .messageBody("no once-event-id")
                      .messageGroupId("k0")
                      .messageDeduplicationId("foreign-1"))
          .join();
      rig.once()
          .useTransaction(
              tx ->
                  tx.publish(
                      dev.once.Event.of(
                          dev.once.EventId.of("step", "none", 1),
                          rig.destination(),
                          null,
                          "Step",
                          "{}")));
      rig.publish(2, 1, 5);
      consumer.start();
      rig.startRelay();
      rig.await("all effects", () -> rig.effects() == 11);
      rig.await("lane empty", () -> rig.count("SELECT count(*) FROM once_queue") == 0);
      rig.await("nothing left in SQS", () -> rig.leftInSqs() == 0);

      assertThat(
              db.count(
                  "SELECT count(*) FROM once_dead_letter WHERE error_class ="
                      + " 'dev.once.MalformedMessage' AND destination = ?",
                  rig.destination()))
          .isOne();
      assertThat(rig.stepsOf("k0")).isEqualTo(OrderedRig.steps(1, 5, 0));
      assertThat(rig.count("SELECT count(*) FROM ordered_effect WHERE event_key IS NULL")).isOne();
      assertThat(rig.count("SELECT count(*) FROM once_parked_key")).isZero();
      assertThat(rig.outOfOrder()).isZero();
    }
  }

  /**
   * Accepted on FIFO queues: the group's lane is bound in key order in Once's database and the
   * destination marked key-ordered for the relay.
   */
  @Test
  void anOrderedConsumerIsAcceptedOnFifoQueues() {
    try (TestDatabase db = TestDatabase.embedded();
        OrderedRig rig = new OrderedRig(db, true, new OnceListener() {}, t -> t, null)) {
      assertThat(rig.sqs.capability(QueueOrder.class)).isPresent();
      Consumer consumer = rig.consumer(rig.once(), (tx, e) -> {}, RetryPolicy.DEFAULT).build();
      rig.closing(consumer);
      assertThat(
              db.count(
                  "SELECT count(*) FROM once_queue_binding WHERE in_key_order AND destination = ?",
                  rig.destination()))
          .as("the group's key lane is declared in Once's database, in key order")
          .isOne();
      assertThat(
              db.count(
                  "SELECT count(*) FROM once_ordered_destination WHERE destination = ?",
                  rig.destination()))
          .as("the relay holds a key's later rows back for this destination")
          .isOne();
    }
  }

  /** Refused on standard queues, naming the setting and saying what to use. */
  @Test
  void anOrderedConsumerIsRefusedOnStandardQueues() {
    try (TestDatabase db = TestDatabase.embedded();
        OrderedRig rig = new OrderedRig(db, false, new OnceListener() {}, t -> t, null)) {
      assertThatThrownBy(() -> rig.consumer(rig.once(), (tx, e) -> {}, RetryPolicy.DEFAULT).build())
          .isInstanceOf(ConfigurationException.class)
          .hasMessageContaining("consumer.ordered")
          .hasMessageContaining("FIFO");
      assertThat(
              db.count(
                  "SELECT count(*) FROM once_ordered_destination WHERE destination = ?",
                  rig.destination()))
          .as("nothing marked")
          .isZero();
    }
  }
}
