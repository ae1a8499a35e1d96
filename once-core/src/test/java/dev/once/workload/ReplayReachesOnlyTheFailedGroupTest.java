package dev.once.workload;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.once.Consumer;
import dev.once.DeadLetterFilter;
import dev.once.OnceException;
import dev.once.RetentionPolicy;
import dev.once.RetryPolicy;
import dev.once.test.TestDatabase;
import dev.once.testkit.SettableClock;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * A dead letter of one consumer group is replayed after retention deleted the markers of another
 * group that processed the event: only the failed group gets it, so the other acts once. A replay
 * older than the replay horizon is refused, saying why and how to do it deliberately.
 */
class ReplayReachesOnlyTheFailedGroupTest {

  @Test
  void aReplayAfterRetentionRanMakesNoSecondEffectInTheOtherGroups() throws Exception {
    SettableClock clock = SettableClock.stoppedNow();
    RetentionPolicy retention =
        RetentionPolicy.builder()
            .markers(Duration.ofDays(2))
            .redeliveryHorizon(Duration.ofDays(1))
            .replayHorizon(Duration.ofDays(1))
            .build();
    try (Rig rig = new Rig(TestDatabase.embedded(), b -> b.clock(clock).retention(retention))) {
      rig.db.execute("CREATE TABLE effects (consumer text, event_id text)");
      AtomicBoolean broken = new AtomicBoolean(true);
      Consumer billing =
          rig.consumer(
              "billing",
              Rig.fast(3),
              (tx, e) -> tx.update("INSERT INTO effects VALUES ('billing', ?)", e.id().value()));
      Consumer warehouse =
          rig.consumer(
              "warehouse",
              RetryPolicy.builder()
                  .maxAttempts(3)
                  .nonRetryable(IllegalStateException.class)
                  .build(),
              (tx, e) -> {
                if (broken.get()) {
                  throw new IllegalStateException("warehouse is down");
                }
                tx.update("INSERT INTO effects VALUES ('warehouse', ?)", e.id().value());
              });
      rig.publish("orders", 1, "{}");
      rig.drain(billing, warehouse);
      assertThat(rig.db.count("SELECT count(*) FROM effects WHERE consumer = 'billing'")).isOne();
      assertThat(rig.db.count("SELECT count(*) FROM once_dead_letter")).isOne();

      // Given: three days later retention deleted billing's marker
      clock.advance(Duration.ofDays(3));
      rig.once.newRetention().runOnce();
      assertThat(rig.db.count("SELECT count(*) FROM once_inbox")).isZero();

      // When: the old dead letter is replayed plainly, it is refused, saying why and how
      assertThatThrownBy(() -> rig.once.deadLetters().replay(DeadLetterFilter.open(), "t", "fix"))
          .isInstanceOf(OnceException.class)
          .hasMessageContaining("older than the replay horizon, PT24H")
          .hasMessageContaining("could act twice")
          .hasMessageContaining("replayBeyondHorizon");
      assertThat(rig.db.count("SELECT count(*) FROM once_queue")).isZero();

      // When: replayed deliberately after the fix
      broken.set(false);
      assertThat(
              rig.once
                  .deadLetters()
                  .replayBeyondHorizon(DeadLetterFilter.open(), "t", "warehouse fixed"))
          .hasSize(1);
      rig.drain(billing, warehouse);

      // Then: the warehouse acts once, billing not again
      assertThat(rig.db.count("SELECT count(*) FROM effects WHERE consumer = 'warehouse'")).isOne();
      assertThat(rig.db.count("SELECT count(*) FROM effects WHERE consumer = 'billing'"))
          .as("second effects in the other group")
          .isOne();
    }
  }
}
