package dev.once.rabbitmq;

import static org.assertj.core.api.Assertions.assertThat;

import dev.once.Event;
import dev.once.EventId;
import dev.once.Once;
import dev.once.test.ChildJvm;
import dev.once.test.TestDatabase;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * One message that kills the process, in a batch of 32 on RabbitMQ: the deliveries the broker hands
 * back after each crash run alone, so only the poison is dead-lettered and the 31 others are
 * processed once.
 */
class PoisonInBatchTest {
  private static final int MAX_ATTEMPTS = 3;
  private static String vhost;

  @BeforeAll
  static void vhost() {
    vhost = Broker.newVhost();
  }

  @AfterAll
  static void dropVhost() {
    Broker.deleteVhost(vhost);
  }

  @Test
  void aProcessKillingPoisonInABatchOf32IsTheOnlyDeadLetterAndTheOther31AreProcessedOnce()
      throws Exception {
    try (TestDatabase db = TestDatabase.embedded();
        RabbitTransport transport = RabbitTransport.create(Broker.uri(vhost));
        Once once =
            Once.builder()
                .dataSource(db.dataSource())
                .transport(transport)
                .destinations("orders")
                .build()) {
      db.execute("CREATE TABLE effects (event_id text NOT NULL)");
      transport.declare("orders", "warehouse");
      once.useTransaction(
          tx -> {
            for (int i = 0; i < 32; i++) {
              EventId id = i == 9 ? new EventId(PoisonInBatchConsumer.POISON) : EventId.of("o", i);
              tx.publish(Event.of(id, "orders", "k" + i, "OrderPaid", "{}"));
            }
          });
      assertThat(once.newRelay().runOnce()).isEqualTo(32);
      String jdbc = TestDatabase.embeddedUrl() + "&currentSchema=" + db.schema();

      List<Integer> exits = new ArrayList<>();
      while (exits.size() < 12 && !exits.contains(0)) {
        Process child = start(jdbc);
        assertThat(child.waitFor(90, TimeUnit.SECONDS)).as("child ended").isTrue();
        exits.add(child.exitValue());
      }

      assertThat(exits).last().isEqualTo(0);
      assertThat(db.count("SELECT count(*) FROM once_dead_letter")).isEqualTo(1);
      assertThat(
              db.count(
                  "SELECT count(*) FROM once_dead_letter WHERE event_id = ?",
                  PoisonInBatchConsumer.POISON))
          .isEqualTo(1);
      assertThat(db.count("SELECT count(*) FROM effects")).isEqualTo(31);
      assertThat(db.count("SELECT count(DISTINCT event_id) FROM effects")).isEqualTo(31);
      assertThat(db.count("SELECT count(*) FROM once_inbox")).isEqualTo(31);
    }
  }

  private static Process start(String jdbc) throws Exception {
    return new ProcessBuilder(
            ChildJvm.command(
                PoisonInBatchConsumer.class,
                jdbc,
                Broker.uri(vhost),
                Integer.toString(MAX_ATTEMPTS)))
        .redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.DISCARD)
        .start();
  }
}
