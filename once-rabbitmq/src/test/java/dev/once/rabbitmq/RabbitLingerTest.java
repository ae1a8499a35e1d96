package dev.once.rabbitmq;

import static org.assertj.core.api.Assertions.assertThat;

import dev.once.Event;
import dev.once.EventId;
import dev.once.spi.Delivery;
import dev.once.spi.Receiver;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A RabbitMQ receiver whose poll had to wait for its first delivery collects what arrives within
 * the linger ({@code ConsumerBuilder.batchLinger}) into the same batch when its worker is busy
 * (deliveries come less than a linger and less than twice its last batch apart, {@code
 * dev.once.spi.Linger}); one that came alone after a quiet spell, or to a worker that idles between
 * deliveries, runs at once.
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
    assertThat(pollDuringATrickle(Duration.ofSeconds(2))).as("one batch for three").isEqualTo(3);
  }

  @Test
  void withoutLingerTheFirstEventIsABatchOfItsOwn() throws Exception {
    assertThat(pollDuringATrickle(Duration.ZERO)).as("the first alone").isEqualTo(1);
  }

  @Test
  void aTrickleToABusyWorkerStillSharesABatch() throws Exception {
    // the batch ends ~100 ms before the next delivery, and the gap is ~100 ms under twice it:
    // room on both sides for a slow publish on a loaded machine
    assertThat(pollAfter(Duration.ofMillis(300), Duration.ofMillis(200), Duration.ofSeconds(2)))
        .as("the next 300 ms later, a batch of 200 ms, linger 2 s: one batch for three")
        .isEqualTo(3);
  }

  @Test
  void aWorkerThatIdlesBetweenDeliveriesDoesNotLinger() throws Exception {
    assertThat(pollAfter(Duration.ofMillis(100), Duration.ZERO, Duration.ofSeconds(2)))
        .as("deliveries 100 ms apart, a batch of no time, linger 2 s: the first runs alone")
        .isEqualTo(1);
  }

  @Test
  void aDeliveryAfterAQuietSpellDoesNotWaitForTheNext() throws Exception {
    assertThat(pollAfter(Duration.ofMillis(1500), Duration.ofMillis(80), Duration.ofMillis(500)))
        .as("1.5 s of quiet, linger 0.5 s: the first runs alone")
        .isEqualTo(1);
  }

  /**
   * A first delivery taken (no linger) and run for {@code batch}; {@code quiet} after it was taken
   * three more 100 ms apart; returns the size of the poll that waited for the second one with
   * {@code linger}.
   */
  private static int pollAfter(Duration quiet, Duration batch, Duration linger) throws Exception {
    try (RabbitTransport rabbit = RabbitTransport.builder().uri(Broker.uri(vhost)).build()) {
      String group = "quiet-" + quiet.toMillis();
      rabbit.declare("orders", group);
      rabbit.purge("orders", group);
      try (Receiver receiver = rabbit.receiver("orders", group)) {
        rabbit.publish(List.of(event(1)), Duration.ofSeconds(10));
        List<Delivery> first = receiver.poll(32, Duration.ofSeconds(10), Duration.ZERO);
        receiver.ack(first);
        CompletableFuture<Void> trickle =
            CompletableFuture.runAsync(
                () -> {
                  try {
                    for (int i = 2; i <= 4; i++) {
                      Thread.sleep(i == 2 ? quiet.toMillis() : 100);
                      rabbit.publish(List.of(event(i)), Duration.ofSeconds(10));
                    }
                  } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                  }
                });
        Thread.sleep(batch.toMillis());
        List<Delivery> got = receiver.poll(32, Duration.ofSeconds(10), linger);
        trickle.get();
        receiver.ack(got);
        return got.size();
      }
    }
  }

  private static int pollDuringATrickle(Duration linger) throws Exception {
    try (RabbitTransport rabbit = RabbitTransport.builder().uri(Broker.uri(vhost)).build()) {
      String group = "warehouse-" + linger.toMillis();
      rabbit.declare("orders", group);
      rabbit.purge("orders", group);
      try (Receiver receiver = rabbit.receiver("orders", group)) {
        CompletableFuture<Void> trickle =
            CompletableFuture.runAsync(
                () -> {
                  try {
                    for (int i = 1; i <= 3; i++) {
                      Thread.sleep(i == 1 ? 300 : 100);
                      rabbit.publish(List.of(event(i)), Duration.ofSeconds(10));
                    }
                  } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                  }
                });
        List<Delivery> got = receiver.poll(32, Duration.ofSeconds(10), linger);
        trickle.get();
        receiver.ack(got);
        return got.size();
      }
    }
  }

  private static Event event(int i) {
    return Event.of(EventId.of("order-paid", i), "orders", Integer.toString(i), "OrderPaid", "{}");
  }
}
