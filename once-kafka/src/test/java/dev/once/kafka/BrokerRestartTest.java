package dev.once.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.once.Consumer;
import dev.once.Event;
import dev.once.Once;
import dev.once.OnceListener;
import dev.once.Relay;
import dev.once.test.TestDatabase;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The broker stops mid-run and starts again: the relay keeps unconfirmed rows pending (a row marked
 * sent without the broker holding it would be lost for good) and publishes them when the broker is
 * back; the consumers rejoin by themselves. Every event ends with exactly one effect.
 */
class BrokerRestartTest {
  private static final int EVENTS = 3_000;

  @Test
  void theRelayAndTheConsumersRecoverByThemselvesWhenTheBrokerStopsAndStartsMidRun()
      throws Exception {
    String dest = PipelineNames.unique("restart");
    try (TestDatabase db = TestDatabase.embedded();
        KafkaTransport transport =
            Broker.transport().deliveryTimeout(Duration.ofSeconds(5)).build()) {
      Flow.createEffects(db);
      transport.declare(dest, "warehouse");
      Flow.Outcomes outcomes = new Flow.Outcomes();
      AtomicInteger publishFailures = new AtomicInteger();
      OnceListener failures =
          new OnceListener() {
            @Override
            public void publishFailed(Event event, String reason) {
              publishFailures.incrementAndGet();
            }
          };
      try (Once once = Flow.once(db, transport, dest, outcomes, failures);
          Consumer consumer = Flow.consumer(once, dest, 4);
          Relay relay = once.newRelay()) {
        consumer.start();
        relay.start();
        Flow.produce(once, dest, 0, 1_000, 50);
        await().atMost(Duration.ofSeconds(60)).until(() -> Flow.effects(db) >= 300);

        Broker.kafka().stop();
        Flow.produce(once, dest, 1_000, EVENTS, 50); // written while the broker is down
        await().atMost(Duration.ofSeconds(60)).until(() -> publishFailures.get() > 0);
        assertThat(Flow.pending(db))
            .as("rows the relay could not publish stay pending")
            .isPositive();
        assertThat(db.count("SELECT coalesce(max(attempts), 0) FROM once_outbox"))
            .as("a stopped broker says nothing about the rows: none is charged")
            .isZero();
        Broker.kafka().start();

        await()
            .atMost(Duration.ofSeconds(150))
            .pollInterval(Duration.ofMillis(250))
            .until(() -> Flow.distinctEffects(db) >= EVENTS && Flow.pending(db) == 0);
        await()
            .atMost(Duration.ofSeconds(30))
            .until(() -> transport.depth(dest, "warehouse").orElse(-1) == 0);
      } finally {
        Broker.kafka().start(); // whatever happened, the next test gets its broker
      }
      System.out.printf("BROKER RESTART %d events: outcomes %s%n", EVENTS, outcomes);
      assertThat(Flow.distinctEffects(db)).as("none lost").isEqualTo(EVENTS);
      assertThat(Flow.effects(db)).as("no second effect").isEqualTo(EVENTS);
      assertThat(db.count("SELECT count(*) FROM once_inbox")).isEqualTo(EVENTS);
    }
  }
}
