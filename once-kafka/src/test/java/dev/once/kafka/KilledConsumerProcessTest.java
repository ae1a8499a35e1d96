package dev.once.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import dev.once.Consumer;
import dev.once.Event;
import dev.once.EventId;
import dev.once.Once;
import dev.once.OnceListener;
import dev.once.Outcome;
import dev.once.ReceivedEvent;
import dev.once.test.ChildJvm;
import dev.once.test.TestDatabase;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A real consumer process, SIGKILLed after its commit and before its offset commit: the record
 * comes back to the surviving member once the dead one's session ran out, flagged redelivered (the
 * committed offset's note says it was handed out), and is a DUPLICATE with one effect.
 */
class KilledConsumerProcessTest {
  private static final String DEST = PipelineNames.unique("orders");

  @Test
  void aConsumerProcessKilledAfterCommitBeforeAckLeavesOneEffectAndTheRedeliveryIsADuplicate()
      throws Exception {
    try (TestDatabase db = TestDatabase.embedded();
        KafkaTransport transport =
            Broker.transport().sessionTimeout(Duration.ofSeconds(6)).build();
        Once once =
            Once.builder()
                .dataSource(db.dataSource())
                .transport(transport)
                .destinations(DEST)
                .build()) {
      db.execute("CREATE TABLE effects (event_id text NOT NULL)");
      transport.declare(DEST, "warehouse");
      EventId id = EventId.of("order-paid", 814);
      once.inTransaction(tx -> tx.publish(Event.of(id, DEST, "814", "OrderPaid", "{}")));
      assertThat(once.newRelay().runOnce()).isEqualTo(1);

      Process child = startChild(db);
      try {
        awaitLine(child, "COMMITTED");
        // Given: the child committed marker and effect, and has not acknowledged
        assertThat(db.count("SELECT count(*) FROM effects")).isEqualTo(1);
        assertThat(db.count("SELECT count(*) FROM once_inbox")).isEqualTo(1);
      } finally {
        child.destroyForcibly(); // SIGKILL
        child.waitFor(30, TimeUnit.SECONDS);
      }
      assertThat(child.exitValue()).isEqualTo(137);

      // When: another worker of the same consumer gets the redelivery
      List<ReceivedEvent> seen = new CopyOnWriteArrayList<>();
      List<Outcome> outcomes = new CopyOnWriteArrayList<>();
      Consumer survivor = survivor(db, transport, seen, outcomes);
      long deadline = System.nanoTime() + Duration.ofSeconds(40).toNanos();
      while (outcomes.isEmpty() && System.nanoTime() < deadline) {
        survivor.runOnce();
      }
      survivor.close();

      // Then: a DUPLICATE, still one effect and one marker
      assertThat(outcomes).containsExactly(Outcome.DUPLICATE);
      assertThat(seen.get(0).redelivered()).isTrue();
      assertThat(seen.get(0).deliveryCount()).isGreaterThanOrEqualTo(2);
      assertThat(db.count("SELECT count(*) FROM effects")).isEqualTo(1);
      assertThat(db.count("SELECT count(*) FROM once_inbox")).isEqualTo(1);
    }
  }

  private Consumer survivor(
      TestDatabase db, KafkaTransport transport, List<ReceivedEvent> seen, List<Outcome> outcomes) {
    OnceListener recorder =
        new OnceListener() {
          @Override
          public void outcome(ReceivedEvent event, Outcome outcome, Duration took) {
            seen.add(event);
            outcomes.add(outcome);
          }
        };
    Once again =
        Once.builder()
            .dataSource(db.dataSource())
            .transport(transport)
            .destinations(DEST)
            .listener(recorder)
            .build();
    return again
        .consumer("warehouse")
        .subscribe(DEST, (tx, e) -> tx.update("INSERT INTO effects VALUES (?)", e.id().value()))
        .idleWait(Duration.ofMillis(200))
        .build();
  }

  private static Process startChild(TestDatabase db) throws Exception {
    String jdbc = TestDatabase.embeddedUrl() + "&currentSchema=" + db.schema();
    return new ProcessBuilder(
            ChildJvm.command(
                KillableConsumer.class, jdbc, Broker.bootstrap(), DEST, "warehouse", "effects"))
        .redirectErrorStream(true)
        .start();
  }

  private static void awaitLine(Process child, String prefix) throws Exception {
    BufferedReader out =
        new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    String line;
    while ((line = out.readLine()) != null) {
      if (line.startsWith(prefix)) {
        return;
      }
      if (System.nanoTime() > deadline) {
        break;
      }
    }
    throw new AssertionError(
        "the child never printed " + prefix + " (alive: " + child.isAlive() + ")");
  }
}
