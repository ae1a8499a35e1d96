package dev.once.workload;

import static org.assertj.core.api.Assertions.assertThat;

import dev.once.Consumer;
import dev.once.DeadLetter;
import dev.once.DeadLetterFilter;
import dev.once.OnceListener;
import dev.once.Outcome;
import dev.once.ReceivedEvent;
import dev.once.test.TestDatabase;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class PoisonMessageTest {

  @Test
  void aPoisonMessageIsTriedExactlyMaxAttemptsTimesThenDeadLetteredOnceAndAcknowledged()
      throws Exception {
    try (Rig rig = new Rig(TestDatabase.embedded())) {
      rig.db.execute("CREATE TABLE effects (event_id text)");
      AtomicInteger poisonRuns = new AtomicInteger();
      Consumer consumer =
          rig.consumer(
              "warehouse",
              Rig.fast(4),
              (tx, e) -> {
                if (e.key().equals("2")) {
                  poisonRuns.incrementAndGet();
                  throw new IllegalStateException("cannot ship order 2");
                }
                tx.update("INSERT INTO effects VALUES (?)", e.id().value());
              });
      for (long id = 1; id <= 3; id++) {
        rig.publish("orders", id, "{\"orderId\":" + id + "}");
      }
      rig.drain(consumer);

      assertThat(poisonRuns.get()).isEqualTo(4);
      assertThat(rig.db.count("SELECT count(*) FROM effects")).isEqualTo(2);
      assertThat(rig.db.count("SELECT count(*) FROM once_dead_letter")).isEqualTo(1);
      assertThat(rig.db.count("SELECT count(*) FROM once_inbox WHERE event_id = 'order-paid:2'"))
          .as("a dead letter leaves no marker, so a replay can process it")
          .isZero();
      assertThat(rig.db.count("SELECT count(*) FROM once_queue")).as("acknowledged").isZero();
      assertThat(rig.db.count("SELECT count(*) FROM once_attempt")).as("retry backlog").isZero();
      DeadLetter d = rig.deadLetters().list(DeadLetterFilter.open()).get(0);
      assertThat(d.attempts()).isEqualTo(4);
      assertThat(d.consumerId()).isEqualTo("warehouse");
      assertThat(d.event().id().value()).isEqualTo("order-paid:2");
      assertThat(d.errorClass()).isEqualTo(IllegalStateException.class.getName());
      assertThat(d.errorMessage()).isEqualTo("cannot ship order 2");
      assertThat(d.errorFingerprint()).hasSize(12);
      assertThat(d.firstFailedAt()).isBefore(d.lastFailedAt());
    }
  }

  @Test
  void aNonRetryableFailureIsDeadLetteredAtTheFirstAttempt() throws Exception {
    try (Rig rig = new Rig(TestDatabase.embedded())) {
      AtomicInteger runs = new AtomicInteger();
      Consumer consumer =
          rig.consumer(
              "warehouse",
              dev.once.RetryPolicy.builder()
                  .maxAttempts(5)
                  .nonRetryable(IllegalArgumentException.class)
                  .build(),
              (tx, e) -> {
                runs.incrementAndGet();
                throw new NumberFormatException("not a number"); // an IllegalArgumentException
              });
      rig.publish("orders", 1, "{}");
      rig.drain(consumer);
      assertThat(runs.get()).isEqualTo(1);
      assertThat(rig.db.count("SELECT attempts FROM once_dead_letter")).isEqualTo(1);
    }
  }

  @Test
  void aRedeliveryAfterTheDeadLetterCommittedButBeforeTheAckAddsNoSecondDeadLetter()
      throws Exception {
    AtomicBoolean crashOnce = new AtomicBoolean(true);
    OnceListener crashAfterCommit =
        new OnceListener() {
          @Override
          public void committed(List<ReceivedEvent> events) {
            if (crashOnce.getAndSet(false)) {
              throw new Error("simulated crash after commit, before ack");
            }
          }
        };
    try (Rig rig = new Rig(TestDatabase.embedded(), b -> b.listener(crashAfterCommit))) {
      Map<Outcome, Integer> outcomes = new ConcurrentHashMap<>();
      Consumer consumer =
          rig.consumer(
              "warehouse",
              Rig.fast(1),
              (tx, e) -> {
                throw new IllegalStateException("poison");
              });
      rig.publish("orders", 1, "{}");
      rig.once.newRelay().runOnce();
      try {
        consumer.runOnce();
      } catch (Error expected) {
        // the worker died after committing the dead letter; the delivery comes back
      }
      assertThat(rig.db.count("SELECT count(*) FROM once_dead_letter")).isEqualTo(1);
      rig.clock.advance(Rig.VISIBILITY_TIMEOUT); // the dead worker's claim runs out
      rig.drain(consumer);
      assertThat(rig.db.count("SELECT count(*) FROM once_dead_letter")).isEqualTo(1);
      assertThat(rig.db.count("SELECT count(*) FROM once_queue")).isZero();
    }
  }

  @Test
  void replayAfterTheHandlerIsFixedProcessesTheEventOnceAndRecordsWhoDidIt() throws Exception {
    try (Rig rig = new Rig(TestDatabase.embedded())) {
      rig.db.execute("CREATE TABLE effects (event_id text)");
      AtomicBoolean broken = new AtomicBoolean(true);
      Consumer consumer =
          rig.consumer(
              "warehouse",
              Rig.fast(2),
              (tx, e) -> {
                if (broken.get()) {
                  throw new IllegalStateException("bug");
                }
                tx.update("INSERT INTO effects VALUES (?)", e.id().value());
              });
      rig.publish("orders", 7, "{}");
      rig.drain(consumer);
      assertThat(rig.db.count("SELECT count(*) FROM once_dead_letter WHERE status = 'dead'"))
          .isEqualTo(1);

      broken.set(false);
      List<DeadLetter> replayed =
          rig.deadLetters()
              .replay(DeadLetterFilter.open().consumer("warehouse"), "ops@test", "fixed");
      rig.drain(consumer);
      // replaying again (nothing open) and a forced second copy of the event change nothing
      assertThat(rig.deadLetters().replay(DeadLetterFilter.open(), "ops@test", "again")).isEmpty();
      rig.transport.publish(List.of(replayed.get(0).event()), Duration.ofSeconds(5));
      rig.drain(consumer);

      assertThat(replayed).hasSize(1);
      assertThat(rig.db.count("SELECT count(*) FROM effects WHERE event_id = 'order-paid:7'"))
          .isEqualTo(1);
      assertThat(rig.db.count("SELECT count(*) FROM once_dead_letter WHERE status = 'replayed'"))
          .isEqualTo(1);
      assertThat(
              rig.db.count(
                  "SELECT count(*) FROM once_dead_letter_action"
                      + " WHERE action = 'replay' AND actor = 'ops@test' AND reason = 'fixed'"
                      + " AND event_id = 'order-paid:7' AND acted_at IS NOT NULL"))
          .isEqualTo(1);
    }
  }

  @Test
  void aDiscardIsRecordedAndLeavesNothingToReplay() throws Exception {
    try (Rig rig = new Rig(TestDatabase.embedded())) {
      Consumer consumer =
          rig.consumer(
              "warehouse",
              Rig.fast(1),
              (tx, e) -> {
                throw new IllegalStateException("bad");
              });
      rig.publish("orders", 1, "{}");
      rig.publish("orders", 2, "{}");
      rig.drain(consumer);
      var dl = rig.deadLetters();
      assertThat(dl.discard(DeadLetterFilter.open().event("order-paid:1"), "me", null)).hasSize(1);
      assertThat(dl.list(DeadLetterFilter.open()))
          .extracting(d -> d.event().id().value())
          .containsExactly("order-paid:2");
      assertThat(
              rig.db.count("SELECT count(*) FROM once_dead_letter_action WHERE action = 'discard'"))
          .isEqualTo(1);
    }
  }
}
