package dev.once;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.once.internal.Wakeup;
import dev.once.spi.Delivery;
import dev.once.spi.Receiver;
import dev.once.tablequeue.TableQueueTransport;
import dev.once.test.TestDatabase;
import dev.once.testkit.SettableClock;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Under a trickle (one event per producer transaction), a poll that had to wait for its first
 * delivery waits {@code batchLinger} more, so that the events published meanwhile share its batch
 * and its commit; a poll that finds deliveries waiting returns them at once. The quiet spells and
 * gaps it decides by are read on the transport's clock, which the tests move instead of sleeping.
 */
class BatchLingerTest {

  @Test
  void aPollThatWaitedCollectsWhatArrivesWithinTheLinger() throws Exception {
    try (TestDatabase db = TestDatabase.embedded();
        TableQueueTransport queue = TableQueueTransport.create(db.dataSource())) {
      queue.declare("orders", "warehouse");
      try (Receiver receiver = queue.receiver("orders", "warehouse")) {
        Poll poll = Poll.start(receiver, Duration.ofSeconds(10), Duration.ofSeconds(2));
        for (int i = 1; i <= 3; i++) {
          queue.publish(List.of(event(i)), Duration.ofSeconds(5));
        }
        assertThat(poll.got()).as("one batch for the three events").hasSize(3);
      }
    }
  }

  @Test
  void withoutLingerThePollReturnsTheFirstItWaitedForAlone() throws Exception {
    try (TestDatabase db = TestDatabase.embedded();
        TableQueueTransport queue = TableQueueTransport.create(db.dataSource())) {
      queue.declare("orders", "warehouse");
      try (Receiver receiver = queue.receiver("orders", "warehouse")) {
        Poll poll = Poll.start(receiver, Duration.ofSeconds(10), Duration.ZERO);
        queue.publish(List.of(event(1)), Duration.ofSeconds(5));
        assertThat(poll.got()).as("the first event alone").hasSize(1);
        queue.publish(List.of(event(2)), Duration.ofSeconds(5));
        assertThat(receiver.poll(32, Duration.ofSeconds(10), Duration.ZERO))
            .as("the next, a batch of its own")
            .hasSize(1);
      }
    }
  }

  @Test
  void aPollThatFindsDeliveriesWaitingDoesNotLinger() throws Exception {
    try (TestDatabase db = TestDatabase.embedded();
        TableQueueTransport queue = TableQueueTransport.create(db.dataSource())) {
      queue.declare("orders", "warehouse");
      queue.publish(List.of(event(1)), Duration.ofSeconds(5));
      try (Receiver receiver = queue.receiver("orders", "warehouse")) {
        long start = System.nanoTime();
        List<Delivery> got = receiver.poll(32, Duration.ofSeconds(10), Duration.ofSeconds(5));
        assertThat(got).hasSize(1);
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(4));
      }
    }
  }

  @Test
  void aNegativeOrLongLingerIsRefusedByName() {
    try (TestDatabase db = TestDatabase.embedded();
        TableQueueTransport queue = TableQueueTransport.create(db.dataSource());
        Once once =
            Once.builder().dataSource(db.dataSource()).transport(queue).destinations("o").build()) {
      assertThatThrownBy(
              () ->
                  once.consumer("warehouse")
                      .subscribe("o", (tx, e) -> {})
                      .batchLinger(Duration.ofMillis(-1))
                      .build())
          .isInstanceOf(ConfigurationException.class)
          .hasMessage("consumer.batchLinger must be between 0 and 1 s, was PT-0.001S");
      assertThatThrownBy(
              () ->
                  once.consumer("warehouse")
                      .subscribe("o", (tx, e) -> {})
                      .batchLinger(Duration.ofSeconds(2))
                      .build())
          .hasMessage("consumer.batchLinger must be between 0 and 1 s, was PT2S");
    }
  }

  @Test
  void aRowAfterAQuietSpellIsClaimedWithoutWaitingForTheNext() throws Exception {
    SettableClock clock = SettableClock.stoppedNow();
    try (TestDatabase db = TestDatabase.embedded();
        TableQueueTransport queue =
            TableQueueTransport.builder(db.dataSource()).clock(clock).build()) {
      queue.declare("orders", "warehouse");
      try (Receiver receiver = queue.receiver("orders", "warehouse")) {
        queue.publish(List.of(event(1)), Duration.ofSeconds(5));
        receiver.ack(receiver.poll(32, Duration.ofSeconds(10), Duration.ZERO));
        clock.advance(Duration.ofHours(2)); // quiet: longer than the linger
        // a linger (and a wait) of an hour: a poll that lingered would not return in the test
        Poll poll = Poll.start(receiver, Duration.ofHours(1), Duration.ofHours(1));
        queue.publish(List.of(event(2)), Duration.ofSeconds(5));
        assertThat(poll.got()).as("the first after the quiet spell, alone and at once").hasSize(1);
      }
    }
  }

  @Test
  void aTrickleAfterTheFirstClaimStillSharesABatch() throws Exception {
    SettableClock clock = SettableClock.stoppedNow();
    try (TestDatabase db = TestDatabase.embedded();
        TableQueueTransport queue =
            TableQueueTransport.builder(db.dataSource()).clock(clock).build()) {
      queue.declare("orders", "warehouse");
      try (Receiver receiver = queue.receiver("orders", "warehouse")) {
        queue.publish(List.of(event(1)), Duration.ofSeconds(5));
        receiver.ack(receiver.poll(32, Duration.ofSeconds(10), Duration.ZERO));
        clock.advance(Duration.ofMillis(100)); // the next row comes 100 ms after the last claim
        Poll poll = Poll.start(receiver, Duration.ofSeconds(10), Duration.ofSeconds(1));
        for (int i = 2; i <= 4; i++) {
          queue.publish(List.of(event(i)), Duration.ofSeconds(5));
        }
        assertThat(poll.got()).as("rows 100 ms apart, linger 1 s: one batch").hasSize(3);
      }
    }
  }

  /**
   * A poll on a thread of its own, started and waiting (parked in the receiver's wake-up, so that
   * what the test publishes next is waited for, as under a trickle) when {@link #start} returns.
   */
  private static final class Poll {
    private final CompletableFuture<List<Delivery>> result = new CompletableFuture<>();
    private final Thread thread;

    private Poll(Receiver receiver, Duration wait, Duration linger) {
      thread =
          new Thread(
              () -> {
                try {
                  result.complete(receiver.poll(32, wait, linger));
                } catch (Throwable t) {
                  result.completeExceptionally(t);
                }
              },
              "test-poll");
    }

    static Poll start(Receiver receiver, Duration wait, Duration linger) {
      Poll poll = new Poll(receiver, wait, linger);
      poll.thread.start();
      await()
          .atMost(Duration.ofSeconds(30))
          .pollInterval(Duration.ofMillis(5))
          .until(
              () ->
                  poll.result.isDone()
                      || poll.thread.getState() == Thread.State.TIMED_WAITING
                          && Arrays.stream(poll.thread.getStackTrace())
                              .anyMatch(f -> f.getClassName().equals(Wakeup.class.getName())));
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
