package dev.once.workload;

import static org.assertj.core.api.Assertions.assertThat;

import dev.once.Consumer;
import dev.once.Event;
import dev.once.Once;
import dev.once.spi.Delivery;
import dev.once.spi.PublishResult;
import dev.once.spi.Receiver;
import dev.once.spi.Transport;
import dev.once.test.TestDatabase;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A worker whose every batch ends in an {@code Error} that no handler threw (a broken transport
 * client, a linkage error) is not a poison that the next attempt dead-letters: it must pause as
 * after any failure, not spin re-creating receivers and logging a line per turn.
 */
class BrokenWorkerPausesTest {

  @Test
  void anErrorOnEveryPollPausesTheWorkerInsteadOfSpinning() throws Exception {
    AtomicInteger polls = new AtomicInteger();
    try (TestDatabase db = TestDatabase.embedded();
        Once once =
            Once.builder()
                .dataSource(db.dataSource())
                .transport(new BrokenTransport(polls))
                .destinations("orders")
                .build()) {
      Consumer consumer =
          once.consumer("warehouse")
              .subscribe("orders", (tx, e) -> {})
              .workers(1)
              .idleWait(Duration.ofMillis(50))
              .build()
              .start();
      Thread.sleep(3_000);
      consumer.close();
      // 100 + 200 + 400 + 800 + 1600 ms of pauses after the first crash: at most 7 turns in 3 s;
      // a loop without pause turns thousands of times
      assertThat(polls.get()).as("receiver polls in 3 s").isBetween(2, 10);
    }
  }

  /** A transport whose receivers throw an Error on every poll. */
  private record BrokenTransport(AtomicInteger polls) implements Transport {
    @Override
    public String name() {
      return "broken";
    }

    @Override
    public void declare(String destination, String consumerId) {}

    @Override
    public PublishResult publish(List<Event> batch, Duration confirmTimeout) {
      throw new UnsupportedOperationException("nothing is published in this test");
    }

    @Override
    public Receiver receiver(String destination, String consumerId) {
      return new Receiver() {
        @Override
        public List<Delivery> poll(int max, Duration wait) {
          polls.incrementAndGet();
          throw new LinkageError("a broken client library");
        }

        @Override
        public void ack(List<Delivery> deliveries) {}

        @Override
        public void nack(List<Delivery> deliveries, Duration delay) {}

        @Override
        public void close() {}
      };
    }

    @Override
    public void close() {}
  }
}
