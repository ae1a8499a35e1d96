package dev.once.rabbitmq;

import static org.assertj.core.api.Assertions.assertThat;

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
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * An ordered consumer on the real RabbitMQ (docs/ORDERING.md, "Ordered on RabbitMQ"): the group's
 * queue has a single active consumer, whose one receiver writes every message into the key lane in
 * Once's database and acknowledges it after that commit; the consumer's workers run the lane with
 * the table queue's ordered claim. Checked as the table queue's ordered consumer is ({@code
 * OrderedConsumerTest}): each effect records its key's step in the handler's transaction, and
 * {@link OrderedRig#OUT_OF_ORDER} counts the effects that do not follow their key's previous one by
 * exactly one step. The runs every such transport passes are {@link KeyOrderContract}'s; here are
 * RabbitMQ's own.
 */
class KeyOrderOnRabbitTest extends KeyOrderContract {
  private static String vhost;

  @BeforeAll
  static void vhost() {
    vhost = Broker.newVhost();
  }

  @AfterAll
  static void dropVhost() {
    Broker.deleteVhost(vhost);
  }

  @Override
  protected KeyOrderRig newRig(
      boolean mariaDb,
      OnceListener listener,
      UnaryOperator<Transport> wrap,
      UnaryOperator<DataSource> onceDataSource) {
    TestDatabase db = mariaDb ? TestDatabase.mariadb() : TestDatabase.embedded();
    return new OrderedRig(db, vhost, listener, wrap, onceDataSource.apply(db.dataSource()))
        .owning(db);
  }

  @Override
  protected long leftInBroker(KeyOrderRig rig) {
    return ((OrderedRig) rig).unsettled();
  }

  /**
   * The broken twin: the group's queue without a single active consumer, two members whose
   * receivers compete for it and both write into the lane. So that the twin does not depend on
   * timing, a receiver that receives k0's step 2 holds it (and its batch) until a later step of k0
   * has taken effect: with one active receiver nothing else would be received meanwhile (the run
   * would wait), with two the other receives k0's later steps and they run. The checker sees it.
   */
  @Test
  void theCheckerCatchesALaneFedByCompetingReceivers() {
    try (TestDatabase db = TestDatabase.embedded()) {
      AtomicBoolean held = new AtomicBoolean();
      OrderedRig.Later<OrderedRig> rigRef = new OrderedRig.Later<>();
      UnaryOperator<Receiver> holding =
          r ->
              new Passing(r) {
                @Override
                public List<Delivery> poll(int max, Duration wait, Duration linger)
                    throws InterruptedException {
                  List<Delivery> got = super.poll(max, wait, linger);
                  if (got.stream()
                          .anyMatch(
                              d -> !d.isMalformed() && d.event().id().value().equals("step:k0:2"))
                      && held.compareAndSet(false, true)) {
                    long until = System.nanoTime() + Duration.ofSeconds(90).toNanos();
                    while (rigRef
                                .get()
                                .count(
                                    "SELECT count(*) FROM ordered_effect"
                                        + " WHERE event_key = 'k0' AND step > 2")
                            == 0
                        && System.nanoTime() < until) {
                      Thread.sleep(20);
                    }
                  }
                  return got;
                }
              };
      try (OrderedRig rig =
          new OrderedRig(db, vhost, new OnceListener() {}, t -> new Unordered(t, holding), null)) {
        rigRef.set(rig);
        Once second = rig.join();
        Consumer first = rig.consumer(rig.once(), OrderedRig::record, OrderedRig.fast(5)).build();
        Consumer other = rig.consumer(second, OrderedRig::record, OrderedRig.fast(5)).build();
        rig.closing(first);
        rig.closing(other);
        rig.publish(KEYS, 1, STEPS);
        first.start();
        other.start();
        rig.startRelay();
        rig.await("all effects", () -> rig.effects() >= (long) KEYS * STEPS);

        assertThat(held.get()).isTrue();
        assertThat(rig.outOfOrder()).as("k0's later steps overtook step 2").isPositive();
      }
    }
  }

  /**
   * Two processes (a Once and a RabbitMQ transport each) share the group: one receiver of the two
   * is active and feeds the lane, the workers of both run it, a worker of each dies after a commit
   * now and then. Halfway the first process stops: the second's receiver takes over, with what the
   * first held unacknowledged back ahead of the rest. Every key's effects stay in order, once each.
   */
  @Test
  void twoProcessesShareTheGroupAndAHandOverKeepsTheOrder() {
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
    int keys = 10;
    int steps = 40;
    try (TestDatabase db = TestDatabase.embedded();
        OrderedRig rig = new OrderedRig(db, vhost, crashes, t -> t, null)) {
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
      other.start();
      rig.startRelay();
      rig.publish(keys, 1, steps);
      rig.await("a quarter", () -> rig.effects() >= (long) keys * steps / 4);
      first.close();
      rig.await("all effects", () -> rig.effects() >= (long) keys * steps);
      rig.await("lane empty", () -> rig.count("SELECT count(*) FROM once_queue") == 0);

      assertThat(batches.get()).as("crashes happened").isGreaterThanOrEqualTo(7);
      assertThat(rig.effects()).as("one effect per event").isEqualTo((long) keys * steps);
      assertThat(rig.outOfOrder()).as("out of order, repeated or lost").isZero();
      assertThat(rig.unsettled()).as("nothing left in RabbitMQ").isZero();
    }
  }

  /**
   * An ordered consumer is accepted on RabbitMQ: its group's queue is declared with a single active
   * consumer, and its lane is bound in key order in Once's database.
   */
  @Test
  void anOrderedConsumerIsAcceptedAndItsQueueHasASingleActiveConsumer() {
    try (TestDatabase db = TestDatabase.embedded();
        OrderedRig rig = new OrderedRig(db, vhost, new OnceListener() {}, t -> t, null)) {
      assertThat(QueueOrder.class.isAssignableFrom(RabbitTransport.class)).isTrue();
      Consumer consumer = rig.consumer(rig.once(), (tx, e) -> {}, RetryPolicy.DEFAULT).build();
      rig.closing(consumer);
      String queues =
          Broker.ctl("list_queues", "-p", vhost, "-q", "--no-table-headers", "name", "arguments");
      String line =
          queues
              .lines()
              .filter(l -> l.startsWith(rig.destination() + ".warehouse\t"))
              .findFirst()
              .orElseThrow();
      assertThat(line).contains("x-single-active-consumer");
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

  /**
   * What has no place in a key's order: a message that does not decode is dead-lettered by the
   * receiver at its first delivery (as on any transport) and acknowledged, never written into the
   * lane; events without a key go through the lane and run, claimed as by an unordered consumer.
   */
  @Test
  void aMalformedMessageIsDeadLetteredAndEventsWithoutAKeyRunFromTheLane() throws Exception {
    try (TestDatabase db = TestDatabase.embedded();
        OrderedRig rig = new OrderedRig(db, vhost, new OnceListener() {}, t -> t, null)) {
      Consumer consumer = rig.consumer(rig.once(), OrderedRig::record, OrderedRig.fast(3)).build();
      rig.closing(consumer);
      consumer.start();
      rig.startRelay();
      rig.publish(2, 1, 3);
      var factory = new com.rabbitmq.client.ConnectionFactory();
      factory.setUri(Broker.uri(vhost));
      try (var raw = factory.newConnection();
          var ch = raw.createChannel()) {
        ch.basicPublish(
            rig.destination(),
            "k0",
            true,
            new com.rabbitmq.client.AMQP.BasicProperties.Builder()
                .type("Step")
                .deliveryMode(2)
                .build(), // no message id: it does not decode
            "{}".getBytes(java.nio.charset.StandardCharsets.UTF_8));
      }
      rig.once()
          .useTransaction(
              tx -> {
                for (int i = 1; i <= 10; i++) {
                  tx.publish(
                      dev.once.Event.of(
                          dev.once.EventId.of("keyless", i),
                          rig.destination(),
                          null,
                          "Step",
                          "{}"));
                }
              });
      rig.publish(2, 4, 6);
      rig.await("all effects", () -> rig.effects() == 12 + 10);
      rig.await(
          "the malformed one dead-lettered",
          () ->
              rig.count(
                      "SELECT count(*) FROM once_dead_letter"
                          + " WHERE error_class = 'dev.once.MalformedMessage'")
                  == 1);
      rig.await("lane empty", () -> rig.count("SELECT count(*) FROM once_queue") == 0);

      assertThat(rig.count("SELECT count(*) FROM ordered_effect WHERE event_key IS NULL"))
          .as("each event without a key once")
          .isEqualTo(10);
      assertThat(rig.stepsOf("k0")).isEqualTo(OrderedRig.steps(1, 6, 0));
      assertThat(rig.stepsOf("k1")).isEqualTo(OrderedRig.steps(1, 6, 0));
      assertThat(rig.count("SELECT count(*) FROM once_dead_letter")).isOne();
      assertThat(rig.count("SELECT count(*) FROM once_parked_key")).isZero();
      assertThat(rig.unsettled()).as("nothing left in RabbitMQ").isZero();
    }
  }
}
