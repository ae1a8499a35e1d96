package dev.once.workload;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.once.Event;
import dev.once.EventId;
import dev.once.test.ChildJvm;
import dev.once.test.TestDatabase;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * One message that kills the process, in a batch of 32 on the table queue: after the crash the
 * deliveries that come back run as suspects in halving groups, so only the poison is dead-lettered
 * and the 31 others are processed once — none of them is charged for the crashes the poison caused.
 * The poison takes 1 + 5 + 3 lives (a fresh batch, five halvings, maxAttempts alone), the tenth
 * child dead-letters it.
 */
class PoisonInBatchTest {
  private static final int MAX_ATTEMPTS = 3;

  @Test
  void aProcessKillingPoisonInABatchOf32IsTheOnlyDeadLetterAndTheOther31AreProcessedOnce()
      throws Exception {
    try (Rig rig = new Rig(TestDatabase.embedded())) {
      rig.db.execute("CREATE TABLE effects (event_id text)");
      rig.once.consumer("warehouse").subscribe("orders", (tx, e) -> {}).build(); // bind the queue
      rig.once.useTransaction(
          tx -> {
            for (int i = 0; i < 32; i++) {
              EventId id = i == 9 ? new EventId(PoisonInBatchConsumer.POISON) : EventId.of("o", i);
              tx.publish(Event.of(id, "orders", "k" + i, "OrderPaid", "{}"));
            }
          });
      assertThat(rig.once.newRelay().runOnce()).isEqualTo(32);
      String url = ((HikariDataSource) rig.db.dataSource()).getJdbcUrl();

      List<Integer> exits = new ArrayList<>();
      while (exits.size() < 12 && !exits.contains(0)) {
        Process child = start(url);
        assertThat(child.waitFor(60, TimeUnit.SECONDS)).as("child ended").isTrue();
        exits.add(child.exitValue());
      }

      assertThat(exits).last().isEqualTo(0);
      assertThat(exits).hasSize(1 + 5 + MAX_ATTEMPTS + 1);
      assertThat(rig.db.count("SELECT count(*) FROM once_dead_letter")).isEqualTo(1);
      assertThat(
              rig.db.count(
                  "SELECT count(*) FROM once_dead_letter WHERE event_id = ?",
                  PoisonInBatchConsumer.POISON))
          .isEqualTo(1);
      assertThat(rig.db.count("SELECT count(*) FROM effects")).isEqualTo(31);
      assertThat(rig.db.count("SELECT count(DISTINCT event_id) FROM effects")).isEqualTo(31);
      assertThat(rig.db.count("SELECT count(*) FROM once_inbox")).isEqualTo(31);
      assertThat(rig.db.count("SELECT count(*) FROM once_queue")).isZero();
      assertThat(rig.db.count("SELECT count(*) FROM once_attempt")).isZero();
    }
  }

  private static Process start(String url) throws Exception {
    return new ProcessBuilder(
            ChildJvm.command(PoisonInBatchConsumer.class, url, Integer.toString(MAX_ATTEMPTS)))
        .redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.DISCARD)
        .start();
  }
}
