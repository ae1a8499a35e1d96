package dev.once.workload;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.once.test.ChildJvm;
import dev.once.test.TestDatabase;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A message whose handler kills the process every time (SIGKILL-like: {@code halt(137)} in a child
 * JVM) is still bounded: after the first death it comes back a suspect, runs alone (it is alone in
 * its batch) with its attempt counted in a commit before the handler, so the later deaths count as
 * attempts. The first death is not one: nothing was committed before the batch it killed.
 */
class KilledByPoisonTest {
  private static final int MAX_ATTEMPTS = 3;

  @Test
  void aMessageThatKillsTheProcessEveryTimeIsTriedMaxAttemptsTimesThenDeadLettered()
      throws Exception {
    try (Rig rig = new Rig(TestDatabase.embedded())) {
      rig.db.execute("CREATE TABLE runs (at timestamptz)");
      rig.once.consumer("warehouse").subscribe("orders", (tx, e) -> {}).build(); // bind the queue
      rig.publish("orders", 1, "{\"orderId\":1}");
      assertThat(rig.once.newRelay().runOnce()).isEqualTo(1);
      String url = ((HikariDataSource) rig.db.dataSource()).getJdbcUrl();

      List<Integer> exits = new ArrayList<>();
      while (exits.size() < MAX_ATTEMPTS + 3 && !exits.contains(0)) {
        Process child = start(url);
        assertThat(child.waitFor(60, TimeUnit.SECONDS)).as("child ended").isTrue();
        exits.add(child.exitValue());
      }

      assertThat(exits).containsExactly(137, 137, 137, 137, 0);
      assertThat(rig.db.count("SELECT count(*) FROM runs")).isEqualTo(MAX_ATTEMPTS + 1);
      assertThat(rig.db.count("SELECT count(*) FROM once_dead_letter")).isEqualTo(1);
      assertThat(rig.db.count("SELECT attempts FROM once_dead_letter")).isEqualTo(MAX_ATTEMPTS);
      assertThat(
              rig.db.count(
                  "SELECT count(*) FROM once_dead_letter"
                      + " WHERE error_class = 'dev.once.AttemptsExhausted'"))
          .isEqualTo(1);
      assertThat(rig.db.count("SELECT count(*) FROM once_queue")).isZero();
      assertThat(rig.db.count("SELECT count(*) FROM once_inbox")).isZero();
    }
  }

  private static Process start(String url) throws Exception {
    return new ProcessBuilder(
            ChildJvm.command(HaltingConsumer.class, url, Integer.toString(MAX_ATTEMPTS)))
        .redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.DISCARD)
        .start();
  }
}
