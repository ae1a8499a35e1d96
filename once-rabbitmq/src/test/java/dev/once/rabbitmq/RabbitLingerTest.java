package dev.once.rabbitmq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.once.Event;
import dev.once.EventId;
import dev.once.spi.Delivery;
import dev.once.spi.Receiver;
import dev.once.testkit.SettableClock;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A RabbitMQ receiver whose poll had to wait for its first delivery collects what arrives within
 * the linger ({@code ConsumerBuilder.batchLinger}) into the same batch when its worker is busy
 * (deliveries come less than a linger and less than twice its last batch apart, {@code
 * dev.once.spi.Linger}); one that came alone after a quiet spell, or to a worker that idles between
 * deliveries, runs at once. The gaps and batch times it decides by are read on the transport's
 * clock ({@code RabbitTransportBuilder.clock}), which the tests move instead of sleeping.
 */
class RabbitLingerTest {
  private static String vhost;

  @BeforeAll
  static void vhost() {
    vhost = Broker.newVhost();
  }

  @AfterAll
  static void dropVhost() {
    Broker.deleteVhost(vhost);
  }

  @Test
  void aPollThatWaitedCollectsWhatArrivesWithinTheLinger() throws Exception {
    try (RabbitTransport rabbit = RabbitTransport.builder().uri(Broker.uri(vhost)).build();
        Receiver receiver = fresh(rabbit, "warehouse-linger")) {
      Poll poll = Poll.start(receiver, 3, Duration.ofHours(1));
      publish(rabbit, 1, 2, 3);
      assertThat(poll.got()).as("one batch for three").hasSize(3);
    }
  }

  @Test
  void withoutLingerTheFirstEventIsABatchOfItsOwn() throws Exception {
    try (RabbitTransport rabbit = RabbitTransport.builder().uri(Broker.uri(vhost)).build();
        Receiver receiver = fresh(rabbit, "warehouse-no-linger")) {
      Poll poll = Poll.start(receiver, 32, Duration.ZERO);
      publish(rabbit, 1);
      assertThat(poll.got()).as("the first alone").hasSize(1);
    }
  }

  @Test
  void aTrickleToABusyWorkerStillSharesABatch() throws Exception {
    assertThat(pollAfter(Duration.ofMillis(300), Duration.ofMillis(200), 2, 3, 4))
        .as("the next 300 ms later, a batch of 200 ms: one batch for three")
        .hasSize(3);
  }

  @Test
  void aWorkerThatIdlesBetweenDeliveriesDoesNotLinger() throws Exception {
    assertThat(pollAfter(Duration.ofMillis(100), Duration.ZERO, 2))
        .as("the next 100 ms later, a batch of no time: it runs alone, at once")
        .hasSize(1);
  }

  @Test
  void aDeliveryAfterAQuietSpellDoesNotWaitForTheNext() throws Exception {
    // a batch long enough to linger for the gap: only the quiet spell (over the linger) stops it
    assertThat(pollAfter(Duration.ofHours(2), Duration.ofMinutes(90), 2))
        .as("2 h of quiet, linger 1 h: it runs alone, at once")
        .hasSize(1);
  }

  /**
   * On a stopped clock, a first delivery taken (no linger) and run for {@code batch}; the next
   * poll, with a linger of an hour (one that lingered where it should not would not return in the
   * test), waits; {@code gap} after the first arrived, {@code next} are published one by one.
   * Returns what that poll (of at most 3) got.
   */
  private static List<Delivery> pollAfter(Duration gap, Duration batch, int... next)
      throws Exception {
    SettableClock clock = SettableClock.stoppedNow();
    try (RabbitTransport rabbit =
            RabbitTransport.builder().uri(Broker.uri(vhost)).clock(clock).build();
        Receiver receiver = fresh(rabbit, "gap-" + gap.toMillis() + "-batch-" + batch.toMillis())) {
      publish(rabbit, 1);
      receiver.ack(receiver.poll(32, Duration.ofSeconds(10), Duration.ZERO));
      clock.advance(batch);
      Poll poll = Poll.start(receiver, 3, Duration.ofHours(1));
      clock.advance(gap.minus(batch));
      publish(rabbit, next);
      List<Delivery> got = poll.got();
      receiver.ack(got);
      return got;
    }
  }

  private static Receiver fresh(RabbitTransport rabbit, String group) {
    rabbit.declare("orders", group);
    rabbit.purge("orders", group);
    return rabbit.receiver("orders", group);
  }

  private static void publish(RabbitTransport rabbit, int... ids) {
    for (int i : ids) {
      rabbit.publish(List.of(event(i)), Duration.ofSeconds(10));
    }
  }

  /**
   * A poll on a thread of its own, started and waiting for its first delivery (parked in the
   * receiver's poll) when {@link #start} returns, so that what the test publishes next is waited
   * for.
   */
  private static final class Poll {
    private final CompletableFuture<List<Delivery>> result = new CompletableFuture<>();
    private final Thread thread;

    private Poll(Receiver receiver, int max, Duration linger) {
      thread =
          new Thread(
              () -> {
                try {
                  result.complete(receiver.poll(max, Duration.ofSeconds(30), linger));
                } catch (Throwable t) {
                  result.completeExceptionally(t);
                }
              },
              "test-poll");
      thread.setDaemon(true);
    }

    static Poll start(Receiver receiver, int max, Duration linger) {
      Poll poll = new Poll(receiver, max, linger);
      poll.thread.start();
      await()
          .atMost(Duration.ofSeconds(30))
          .pollInterval(Duration.ofMillis(5))
          .until(
              () ->
                  poll.result.isDone()
                      || poll.thread.getState() == Thread.State.TIMED_WAITING
                          && Arrays.stream(poll.thread.getStackTrace())
                              .anyMatch(f -> f.getClassName().endsWith(".RabbitReceiver")));
      return poll;
    }

    List<Delivery> got() throws Exception {
      return result.get(30, TimeUnit.SECONDS);
    }
  }

  private static Event event(int i) {
    return Event.of(EventId.of("order-paid", i), "orders", Integer.toString(i), "OrderPaid", "{}");
  }
}
