package dev.once;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.once.spi.Delivery;
import dev.once.spi.Receiver;
import dev.once.tablequeue.TableQueueTransport;
import dev.once.test.TestDatabase;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * Under a trickle (one event per producer transaction), a poll that had to wait for its first
 * delivery waits {@code batchLinger} more, so that the events published meanwhile share its batch
 * and its commit; a poll that finds deliveries waiting returns them at once.
 */
class BatchLingerTest {

  @Test
  void aPollThatWaitedCollectsWhatArrivesWithinTheLinger() throws Exception {
    try (TestDatabase db = TestDatabase.embedded();
        TableQueueTransport queue = TableQueueTransport.create(db.dataSource())) {
      queue.declare("orders", "warehouse");
      try (Receiver receiver = queue.receiver("orders", "warehouse")) {
        CompletableFuture<Void> trickle = CompletableFuture.runAsync(() -> trickle(queue, 3));
        List<Delivery> got = receiver.poll(32, Duration.ofSeconds(10), Duration.ofSeconds(2));
        trickle.get();
        assertThat(got).as("one batch for the three events").hasSize(3);
      }
    }
  }

  @Test
  void withoutLingerEachEventOfATrickleIsABatchOfItsOwn() throws Exception {
    try (TestDatabase db = TestDatabase.embedded();
        TableQueueTransport queue = TableQueueTransport.create(db.dataSource())) {
      queue.declare("orders", "warehouse");
      try (Receiver receiver = queue.receiver("orders", "warehouse")) {
        CompletableFuture<Void> trickle = CompletableFuture.runAsync(() -> trickle(queue, 3));
        List<Delivery> got = receiver.poll(32, Duration.ofSeconds(10), Duration.ZERO);
        trickle.get();
        assertThat(got).as("the first event alone").hasSize(1);
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
    try (TestDatabase db = TestDatabase.embedded();
        TableQueueTransport queue = TableQueueTransport.create(db.dataSource())) {
      queue.declare("orders", "warehouse");
      try (Receiver receiver = queue.receiver("orders", "warehouse")) {
        queue.publish(List.of(event(1)), Duration.ofSeconds(5));
        receiver.ack(receiver.poll(32, Duration.ofSeconds(10), Duration.ZERO));
        Thread.sleep(1_500); // quiet: longer than the linger
        CompletableFuture<Void> trickle =
            CompletableFuture.runAsync(
                () -> {
                  for (int i = 2; i <= 4; i++) {
                    try {
                      Thread.sleep(i == 2 ? 300 : 100);
                    } catch (InterruptedException e) {
                      Thread.currentThread().interrupt();
                    }
                    queue.publish(List.of(event(i)), Duration.ofSeconds(5));
                  }
                });
        List<Delivery> got = receiver.poll(32, Duration.ofSeconds(10), Duration.ofMillis(500));
        trickle.get();
        assertThat(got).as("the first of the trickle alone, at once").hasSize(1);
      }
    }
  }

  @Test
  void aTrickleAfterTheFirstClaimStillSharesABatch() throws Exception {
    try (TestDatabase db = TestDatabase.embedded();
        TableQueueTransport queue = TableQueueTransport.create(db.dataSource())) {
      queue.declare("orders", "warehouse");
      try (Receiver receiver = queue.receiver("orders", "warehouse")) {
        queue.publish(List.of(event(1)), Duration.ofSeconds(5));
        receiver.ack(receiver.poll(32, Duration.ofSeconds(10), Duration.ZERO));
        CompletableFuture<Void> trickle =
            CompletableFuture.runAsync(
                () -> {
                  for (int i = 2; i <= 4; i++) {
                    try {
                      Thread.sleep(100);
                    } catch (InterruptedException e) {
                      Thread.currentThread().interrupt();
                    }
                    queue.publish(List.of(event(i)), Duration.ofSeconds(5));
                  }
                });
        List<Delivery> got = receiver.poll(32, Duration.ofSeconds(10), Duration.ofSeconds(1));
        trickle.get();
        assertThat(got).as("rows 100 ms apart, linger 1 s: one batch").hasSize(3);
      }
    }
  }

  /** {@code n} events, one publish each, 100 ms apart, the first after 300 ms. */
  private static void trickle(TableQueueTransport queue, int n) {
    try {
      for (int i = 1; i <= n; i++) {
        Thread.sleep(i == 1 ? 300 : 100);
        queue.publish(List.of(event(i)), Duration.ofSeconds(5));
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static Event event(int i) {
    return Event.of(EventId.of("order-paid", i), "orders", Integer.toString(i), "OrderPaid", "{}");
  }
}
