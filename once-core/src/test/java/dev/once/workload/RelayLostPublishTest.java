package dev.once.workload;

import static org.assertj.core.api.Assertions.assertThat;

import dev.once.Event;
import dev.once.EventId;
import dev.once.Once;
import dev.once.Relay;
import dev.once.RetryPolicy;
import dev.once.spi.PublishResult;
import dev.once.spi.Receiver;
import dev.once.spi.Transport;
import dev.once.tablequeue.TableQueueTransport;
import dev.once.test.TestDatabase;
import java.time.Duration;
import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The relay charges an outbox row an attempt only for a refusal (the broker's answer about the
 * message); a loss (the connection went away before any answer) is published again uncharged. A
 * counting test: 20 lost publishes leave every row at 0 attempts, and a row the broker refuses is
 * still charged and parked after {@code relayRetry.maxAttempts}.
 */
class RelayLostPublishTest {
  private static final int LOSSES = 20;

  @Test
  void twentyLostPublishesChargeNothingWhileARefusalIsStillChargedAndParked() throws Exception {
    try (TestDatabase db = TestDatabase.embedded();
        TableQueueTransport queue = TableQueueTransport.create(db.dataSource())) {
      LosingTransport transport =
          new LosingTransport(new NackingTransport(queue, "nowhere"), LOSSES);
      try (Once once =
          Once.builder()
              .dataSource(db.dataSource())
              .transport(transport)
              .destinations("orders", "nowhere")
              .relayRetry(
                  RetryPolicy.builder()
                      .maxAttempts(10)
                      .backoff(Duration.ofMillis(1), Duration.ofMillis(2))
                      .build())
              .build()) {
        once.consumer("warehouse").subscribe("orders", (tx, e) -> {}).build(); // binds orders
        once.useTransaction(
            tx -> {
              for (int i = 0; i < 10; i++) {
                tx.publish(Event.of(EventId.of("order-paid", i), "orders", "k" + i, "T", "{}"));
              }
              tx.publish(Event.of(EventId.of("lost-order", 1), "nowhere", "k", "T", "{}"));
            });
        Relay relay = once.newRelay();
        for (int i = 0; i < LOSSES; i++) {
          assertThat(relay.runOnce()).as("nothing is confirmed while publishes are lost").isZero();
        }
        assertThat(db.count("SELECT coalesce(max(attempts), 0) FROM once_outbox"))
            .as("attempts charged for lost publishes")
            .isZero();

        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (db.count("SELECT count(*) FROM once_dead_letter") == 0
            && System.nanoTime() < deadline) {
          relay.runOnce();
          Thread.sleep(3);
        }
        assertThat(db.count("SELECT count(*) FROM once_outbox WHERE sent_at IS NOT NULL"))
            .as("rows sent once the connection is back")
            .isEqualTo(10);
        assertThat(db.count("SELECT attempts FROM once_outbox WHERE destination = 'nowhere'"))
            .as("a refusal (a nack) is charged, up to relayRetry.maxAttempts")
            .isEqualTo(10);
        assertThat(db.count("SELECT count(*) FROM once_dead_letter")).isEqualTo(1);
        assertThat(transport.publishes.get()).as("publish calls").isGreaterThan(LOSSES);
      }
    }
  }

  /** Loses the first {@code losses} publishes whole, as a connection lost mid-publish does. */
  private static final class LosingTransport implements Transport {
    private final Transport delegate;
    private final AtomicInteger lossesLeft;
    final AtomicInteger publishes = new AtomicInteger();

    LosingTransport(Transport delegate, int losses) {
      this.delegate = delegate;
      this.lossesLeft = new AtomicInteger(losses);
    }

    @Override
    public String name() {
      return "losing " + delegate.name();
    }

    @Override
    public void declare(String destination, String consumerId) {
      delegate.declare(destination, consumerId);
    }

    @Override
    public PublishResult publish(List<Event> batch, Duration confirmTimeout) {
      publishes.incrementAndGet();
      if (lossesLeft.getAndDecrement() <= 0) {
        return delegate.publish(batch, confirmTimeout);
      }
      Map<Integer, String> failures = new HashMap<>();
      BitSet lost = new BitSet();
      for (int i = 0; i < batch.size(); i++) {
        failures.put(i, "channel closed before the confirm: connection reset");
        lost.set(i);
      }
      return new PublishResult(new BitSet(), failures, lost);
    }

    @Override
    public Receiver receiver(String destination, String consumerId) {
      return delegate.receiver(destination, consumerId);
    }

    @Override
    public void close() {}
  }
}
