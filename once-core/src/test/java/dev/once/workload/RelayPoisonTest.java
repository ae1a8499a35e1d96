package dev.once.workload;

import static org.assertj.core.api.Assertions.assertThat;

import dev.once.Consumer;
import dev.once.DeadLetter;
import dev.once.DeadLetterFilter;
import dev.once.RetryPolicy;
import dev.once.test.TestDatabase;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The table queue refuses an event no consumer group is bound to (unroutable), as RabbitMQ does
 * with a mandatory publish: a real refusal by the broker, not a mock.
 */
class RelayPoisonTest {

  @Test
  void aRowTheBrokerRefusesBacksOffIsParkedAsADeadLetterAndBlocksNoOtherRow() throws Exception {
    try (Rig rig =
        new Rig(
            TestDatabase.embedded(),
            b ->
                b.partitions(1) // one partition: the poison row shares it with every other row
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
      assertThat(d.errorMessage()).contains("unroutable");
      assertThat(rig.db.count("SELECT attempts FROM once_outbox WHERE event_id = 'order-paid:1'"))
          .isEqualTo(3);
      assertThat(loops).as("backoff, not a busy loop").isLessThan(500);
      assertThat(rig.once.newRelay().runOnce()).as("a parked row is not claimed again").isZero();

      // replay after the fix (a consumer group is bound now): the row is pending again
      rig.once.consumer("audit").subscribe("nowhere", (tx, e) -> {}).build();
      assertThat(rig.deadLetters().replay(DeadLetterFilter.open(), "ops", "bound")).hasSize(1);
      assertThat(rig.once.newRelay().runOnce()).isEqualTo(1);
    }
  }
}
