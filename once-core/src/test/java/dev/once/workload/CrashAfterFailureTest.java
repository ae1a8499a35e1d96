package dev.once.workload;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.once.Consumer;
import dev.once.DeadLetter;
import dev.once.DeadLetterFilter;
import dev.once.ReceivedEvent;
import dev.once.test.TestDatabase;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A poison message whose final attempt happens to be a crash is dead-lettered with the last real
 * error the handler threw (and says that the final attempt crashed), so that an operator sees the
 * cause and grouping by fingerprint puts it with its poison siblings.
 */
class CrashAfterFailureTest {

  @Test
  void aDeadLetterWhoseFinalAttemptCrashedShowsTheLastRealErrorAndGroupsWithItsSiblings() {
    try (Rig rig = new Rig(TestDatabase.embedded())) {
      AtomicInteger crasherRuns = new AtomicInteger();
      Consumer consumer =
          rig.consumer(
              "warehouse",
              Rig.fast(3),
              (tx, e) -> {
                if (e.event().key().equals("1") && crasherRuns.incrementAndGet() > 1) {
                  // after one real failure, every later attempt kills the worker mid-handler
                  throw new Error("simulated crash while handling " + e.id());
                }
                ship(e);
              });
      // the sibling first and alone: a crash takes the whole batch it is in down with it
      rig.publish("orders", 2, "{}");
      runUntilDeadLetters(rig, consumer, 1);
      rig.publish("orders", 1, "{}");
      runUntilDeadLetters(rig, consumer, 2);

      List<DeadLetter> dead =
          rig.deadLetters().list(DeadLetterFilter.open()).stream()
              .sorted(Comparator.comparing(d -> d.event().key()))
              .toList();
      DeadLetter crashedLast = dead.get(0);
      DeadLetter sibling = dead.get(1);
      assertThat(crasherRuns.get()).as("one real failure, then crashes").isGreaterThan(1);
      assertThat(crashedLast.finalAttemptCrashed()).isTrue();
      assertThat(crashedLast.errorClass()).isEqualTo(IllegalStateException.class.getName());
      assertThat(crashedLast.errorMessage()).isEqualTo("cannot ship order 1");
      assertThat(crashedLast.errorFingerprint()).isEqualTo(sibling.errorFingerprint());
      assertThat(crashedLast.attempts()).isEqualTo(3);
      assertThat(sibling.finalAttemptCrashed()).isFalse();
      assertThat(
              rig.deadLetters()
                  .list(DeadLetterFilter.open().fingerprint(sibling.errorFingerprint())))
          .hasSize(2);
    }
  }

  private static void runUntilDeadLetters(Rig rig, Consumer consumer, int expected) {
    await()
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(20))
        .until(
            () -> {
              rig.once.newRelay().runOnce();
              try {
                consumer.runOnce();
              } catch (Error crashed) {
                // the delivery stays claimed until the visibility timeout, as after a crash
                rig.clock.advance(Rig.VISIBILITY_TIMEOUT);
              }
              return rig.db.count("SELECT count(*) FROM once_dead_letter") == expected;
            });
  }

  private static void ship(ReceivedEvent e) {
    throw new IllegalStateException("cannot ship order " + e.event().key());
  }
}
