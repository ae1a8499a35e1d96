package dev.once.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.once.Consumer;
import dev.once.DeadLetterFilter;
import dev.once.Event;
import dev.once.EventId;
import dev.once.Once;
import dev.once.Relay;
import dev.once.RetryPolicy;
import dev.once.test.TestDatabase;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * A dead letter of one consumer group, replayed on Kafka, reaches that group only: another group on
 * the same topic — whose marker retention may have deleted — never handles it a second time.
 */
class ReplayTest {

  @Test
  void aReplayReachesOnlyTheGroupThatFailedEvenWhenTheOtherGroupsMarkerIsGone() throws Exception {
    String dest = PipelineNames.unique("replay");
    try (TestDatabase db = TestDatabase.embedded();
        KafkaTransport transport = Broker.transport().build();
        Once once = Flow.once(db, transport, dest)) {
      db.execute("CREATE TABLE effects (consumer text, event_id text)");
      AtomicBoolean broken = new AtomicBoolean(true);
      Consumer billing =
          once.consumer("billing")
              .subscribe(
                  dest,
                  (tx, e) -> {
                    if (broken.get()) {
                      throw new IllegalStateException("billing is down");
                    }
                    tx.update("INSERT INTO effects VALUES ('billing', ?)", e.id().value());
                  })
              .retry(
                  RetryPolicy.builder()
                      .maxAttempts(2)
                      .backoff(Duration.ofMillis(10), Duration.ofMillis(20))
                      .build())
              .idleWait(Duration.ofMillis(200))
              .build();
      Consumer shipping =
          once.consumer("shipping")
              .subscribe(
                  dest,
                  (tx, e) ->
                      tx.update("INSERT INTO effects VALUES ('shipping', ?)", e.id().value()))
              .idleWait(Duration.ofMillis(200))
              .build();
      try (Relay relay = once.newRelay().start();
          Consumer b = billing.start();
          Consumer s = shipping.start()) {
        once.useTransaction(
            tx -> tx.publish(Event.of(EventId.of("order", dest, 1), dest, "k1", "Order", "{}")));
        await()
            .atMost(Duration.ofSeconds(60))
            .until(
                () ->
                    db.count("SELECT count(*) FROM once_dead_letter WHERE consumer_id = 'billing'")
                            == 1
                        && db.count("SELECT count(*) FROM effects WHERE consumer = 'shipping'")
                            == 1);

        db.execute("DELETE FROM once_inbox WHERE consumer_id = 'shipping'"); // as retention would
        broken.set(false);
        assertThat(once.deadLetters().replay(DeadLetterFilter.open(), "test", "billing is back"))
            .hasSize(1);

        await()
            .atMost(Duration.ofSeconds(60))
            .until(() -> db.count("SELECT count(*) FROM effects WHERE consumer = 'billing'") == 1);
        await()
            .atMost(Duration.ofSeconds(30))
            .until(() -> transport.depth(dest, "shipping").orElse(-1) == 0);
      }
      assertThat(db.count("SELECT count(*) FROM effects WHERE consumer = 'shipping'"))
          .as("the other group never handled the replay")
          .isOne();
      assertThat(db.count("SELECT count(*) FROM effects WHERE consumer = 'billing'")).isOne();
    }
  }
}
