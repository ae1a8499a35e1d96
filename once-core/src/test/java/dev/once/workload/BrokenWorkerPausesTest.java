package dev.once.workload;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

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
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * A worker whose every batch ends in an {@code Error} that no handler threw (a broken transport
 * client, a linkage error) is not a poison that the next attempt dead-letters: it must pause as
 * after any failure, not spin re-creating receivers and logging a line per turn. Proven by the
 * times of its own polls, not by sleeping and counting what happened meanwhile.
 */
class BrokenWorkerPausesTest {

  @Test
  void anErrorOnEveryPollPausesTheWorkerInsteadOfSpinning() throws Exception {
    List<Long> polls = new CopyOnWriteArrayList<>();
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
      await().atMost(Duration.ofSeconds(30)).until(() -> polls.size() >= 5);
      consumer.close();
      // The first crash resumes at once (it may have got somewhere); each later one, with nothing
      // committed since, pauses 100, 200, 400 ms … before the next poll. Counted between the polls
      // the worker made, so a slow machine only makes the gaps longer; a loop without a pause
      // polls again within microseconds.
      for (int i = 2; i <= 4; i++) {
        long pauseMillis = 100L << (i - 2);
        assertThat(Duration.ofNanos(polls.get(i) - polls.get(i - 1)).toMillis())
            .as("ms between poll %d and poll %d (a pause of %d ms)", i, i + 1, pauseMillis)
            .isGreaterThanOrEqualTo(pauseMillis - 5);
      }
    }
  }

  /** A transport whose receivers throw an Error on every poll. */
  private record BrokenTransport(List<Long> polls) implements Transport {
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
          polls.add(System.nanoTime());
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
