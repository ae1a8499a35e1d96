package dev.once.sqs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.once.Event;
import dev.once.EventId;
import dev.once.spi.Delivery;
import dev.once.spi.Receiver;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * SQS hands out at most 10 messages a receive, so 30 messages waiting (what a killed process left)
 * come in over several receives. A receiver's first poll lingers, as the consumer asks, until they
 * are all in: one batch — one commit, and for suspects of a crash one raise and one run — instead
 * of one per receive. Before, the receiver ignored the linger and the first poll returned what the
 * first receive brought.
 */
class ReceiverLingerTest {

  @Test
  void aNewReceiversFirstPollLingersUntilWhatWaitsOverSeveralReceivesIsIn() throws Exception {
    String dest = "linger-" + System.nanoTime();
    try (SqsTransport transport = Sqs.transport().receivesInFlight(1).build()) {
      transport.declare(dest, "g");
      List<Event> events = new ArrayList<>();
      for (int i = 0; i < 30; i++) {
        events.add(Event.of(EventId.of("paid", i), dest, "k" + i, "T", "{}"));
      }
      assertThat(transport.publish(events, Duration.ofSeconds(10)).confirmed().cardinality())
          .isEqualTo(30);
      try (Receiver receiver = transport.receiver(dest, "g")) {
        // When: one poll of up to 32, lingering 5 s for more after the first
        List<Delivery> got = receiver.poll(32, Duration.ofSeconds(10), Duration.ofSeconds(5));
        // Then: all 30, in one batch, though no receive brings more than 10
        assertThat(got).hasSize(30);
        receiver.ack(got);
      }
    }
  }
}
