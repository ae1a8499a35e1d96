package dev.once.workload;

import static org.assertj.core.api.Assertions.assertThat;

import dev.once.Consumer;
import dev.once.DeadLetter;
import dev.once.DeadLetterFilter;
import dev.once.RetryPolicy;
import dev.once.tablequeue.TableQueueTransport;
import dev.once.test.TestDatabase;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * A broker that refuses (nacks) every event to one destination: the row backs off, is charged and
 * parked, and blocks no other row. (A destination no consumer is bound to is not a refusal: see
 * {@code DestinationsTest}.)
 */
class RelayPoisonTest {

  @Test
  void aRowTheBrokerRefusesBacksOffIsParkedAsADeadLetterAndBlocksNoOtherRow() throws Exception {
    TestDatabase db = TestDatabase.embedded();
    TableQueueTransport queue = TableQueueTransport.create(db.dataSource());
    NackingTransport nacking = new NackingTransport(queue, "nowhere");
    try (queue;
        Rig rig =
            new Rig(
                db,
                b ->
                    b.transport(nacking)
                        .partitions(
                            1) // one partition: the poison row shares it with every other row
                        .relayRetry(
                            RetryPolicy.builder()
                                .maxAttempts(3)
                                .backoff(Duration.ofMillis(20), Duration.ofMillis(40))
                                .build()))) {
      rig.db.execute("CREATE TABLE effects (event_id text)");
      Consumer consumer =
          rig.consumer(
              "warehouse",
              Rig.fast(3),
              (tx, e) -> tx.update("INSERT INTO effects VALUES (?)", e.id().value()));
      rig.publish("nowhere", 1, "{}");
      for (long id = 2; id <= 50; id++) {
        rig.publish("orders", id, "{}");
      }
      int loops = 0;
      long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
      while (rig.db.count("SELECT count(*) FROM once_dead_letter") == 0
          && System.nanoTime() < deadline) {
        rig.once.newRelay().runOnce();
        loops++;
        Thread.sleep(10);
      }
      rig.drain(consumer);

      assertThat(rig.db.count("SELECT count(*) FROM effects")).isEqualTo(49);
      DeadLetter d = rig.deadLetters().list(DeadLetterFilter.open()).get(0);
      assertThat(d.consumerId()).isEqualTo(DeadLetter.RELAY);
      assertThat(d.attempts()).isEqualTo(3);
      assertThat(d.errorMessage()).contains(NackingTransport.REFUSAL);
      assertThat(rig.db.count("SELECT attempts FROM once_outbox WHERE event_id = 'order-paid:1'"))
          .isEqualTo(3);
      assertThat(loops).as("backoff, not a busy loop").isLessThan(500);
      assertThat(rig.once.newRelay().runOnce()).as("a parked row is not claimed again").isZero();

      // replay after the fix (the broker takes it now, a group is bound): pending again
      nacking.refusing = false;
      rig.once.consumer("audit").subscribe("nowhere", (tx, e) -> {}).build();
      assertThat(rig.deadLetters().replay(DeadLetterFilter.open(), "ops", "bound")).hasSize(1);
      assertThat(rig.once.newRelay().runOnce()).isEqualTo(1);
    }
  }
}
