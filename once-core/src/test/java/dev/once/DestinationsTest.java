package dev.once;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.once.WorkloadStatus.Backlog;
import dev.once.tablequeue.TableQueueTransport;
import dev.once.test.LogLines;
import dev.once.test.TestDatabase;
import dev.once.testkit.SettableClock;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * Declared destinations are the ones an instance publishes to and subscribes to: a misspelled
 * subscription is refused as a misspelled publish is. An event to a destination that no consumer is
 * bound to yet waits in the outbox, uncharged and said once, until one subscribes: never a dead
 * letter for that.
 */
class DestinationsTest {

  @Test
  void aSubscriptionToAnUndeclaredDestinationIsRefusedAtBuildAndBindsNothing() {
    try (TestDatabase db = TestDatabase.embedded();
        TableQueueTransport transport = TableQueueTransport.create(db.dataSource());
        Once once =
            Once.builder()
                .dataSource(db.dataSource())
                .transport(transport)
                .destinations("orders", "labels")
                .build()) {
      ConsumerBuilder misspelled = once.consumer("shipping").subscribe("ordres", (tx, e) -> {});

      assertThatThrownBy(misspelled::build)
          .isInstanceOfSatisfying(
              UnknownDestinationException.class,
              e -> {
                assertThat(e.destination()).isEqualTo("ordres");
                assertThat(e.declared()).containsExactlyInAnyOrder("orders", "labels");
              })
          .hasMessageContaining("unknown destination 'ordres'")
          .hasMessageContaining("[labels, orders]")
          .hasMessageContaining("consumer 'shipping' subscribes to it");
      assertThat(db.count("SELECT count(*) FROM once_queue_binding")).isZero();
    }
  }

  @Test
  void anInstanceThatDeclaresNoDestinationSubscribesAnywhere() {
    try (TestDatabase db = TestDatabase.embedded();
        TableQueueTransport transport = TableQueueTransport.create(db.dataSource());
        Once once = Once.builder().dataSource(db.dataSource()).transport(transport).build()) {
      once.consumer("shipping").subscribe("orders", (tx, e) -> {}).build();

      assertThat(db.count("SELECT count(*) FROM once_queue_binding")).isEqualTo(1);
    }
  }

  @Test
  void eventsToADestinationNoConsumerIsBoundToWaitUnchargedUntilOneSubscribes() {
    SettableClock clock = SettableClock.stoppedNow();
    try (TestDatabase db = TestDatabase.embedded();
        TableQueueTransport transport =
            TableQueueTransport.builder(db.dataSource()).clock(clock).build();
        Once once =
            Once.builder()
                .dataSource(db.dataSource())
                .transport(transport)
                .destinations("labels")
                .clock(clock)
                .build();
        LogLines logs = LogLines.capture()) {
      db.execute("CREATE TABLE printed (label text)");
      for (int i = 0; i < 3; i++) {
        String label = "L-" + i;
        once.useTransaction(
            tx -> tx.publish(Event.of(EventId.of("label", label), "labels", label, "L", label)));
      }
      Relay relay = once.newRelay();
      int maxAttempts = RetryPolicy.DEFAULT.maxAttempts();

      // an hour of relay rounds, more than the attempts that parked a refused row before
      for (int round = 0; round < 3 * maxAttempts; round++) {
        relay.runOnce();
        clock.advance(Duration.ofMinutes(5));
      }

      assertThat(db.count("SELECT count(*) FROM once_dead_letter")).isZero();
      assertThat(db.count("SELECT count(*) FROM once_outbox WHERE sent_at IS NULL")).isEqualTo(3);
      assertThat(db.count("SELECT max(attempts) FROM once_outbox")).isZero();
      assertThat(once.status().outbox())
          .extracting(Backlog::name, Backlog::waiting)
          .containsExactly(org.assertj.core.groups.Tuple.tuple("labels", 3L));
      assertThat(logs.matching("no consumer is bound to destination 'labels'")).hasSize(1);

      Consumer printer =
          once.consumer("printer")
              .subscribe(
                  "labels", (tx, e) -> tx.update("INSERT INTO printed VALUES (?)", e.payloadText()))
              .build();
      clock.advance(Duration.ofMinutes(5));
      assertThat(relay.runOnce()).isEqualTo(3);
      while (printer.runOnce() > 0) {}

      assertThat(db.count("SELECT count(*) FROM printed")).isEqualTo(3);
      assertThat(db.count("SELECT count(*) FROM once_dead_letter")).isZero();
    }
  }
}
