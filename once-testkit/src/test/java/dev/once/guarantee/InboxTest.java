package dev.once.guarantee;

import static org.assertj.core.api.Assertions.assertThat;

import dev.once.Consumer;
import dev.once.Event;
import dev.once.Handler;
import dev.once.Outcome;
import dev.once.test.TestDatabase;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The inbox: identity is the event id; failures roll back alone and come back. */
class InboxTest {

  @ParameterizedTest
  @EnumSource(DatabaseKind.class)
  void aHandlerThatThrowsRollsBackLeavesNoMarkerAndSucceedsOnceOnRedelivery(DatabaseKind kind) {
    try (TestDatabase db = kind.get();
        Harness h = new Harness(db)) {
      AtomicInteger calls = new AtomicInteger();
      Handler failsFirst =
          (tx, e) -> {
            Harness.EFFECT_AND_FOLLOW.handle(tx, e);
            if (calls.incrementAndGet() == 1) {
              throw new IllegalStateException("downstream table locked");
            }
          };
      Consumer consumer = h.consumer("warehouse", failsFirst, 1);
      h.produce(Harness.event("order-paid:t"));

      consumer.runOnce();
      assertThat(h.outcomes).containsExactly(Outcome.RETRY);
      assertThat(h.effects("order-paid:t")).as("effect rolled back").isZero();
      assertThat(h.markers("warehouse", "order-paid:t")).as("marker rolled back").isZero();
      assertThat(h.followRows("warehouse", "order-paid:t")).as("outbox row rolled back").isZero();

      h.runUntil(consumer, () -> h.outcomes.contains(Outcome.PROCESSED));
      assertThat(h.outcomes).containsExactly(Outcome.RETRY, Outcome.PROCESSED);
      assertThat(h.effects("order-paid:t")).isEqualTo(1);
      assertThat(h.markers("warehouse", "order-paid:t")).isEqualTo(1);
      assertThat(h.followRows("warehouse", "order-paid:t")).isEqualTo(1);
    }
  }

  @ParameterizedTest
  @EnumSource(DatabaseKind.class)
  void identicalContentUnderTwoIdsIsTwoEffectsAndTheSameIdAgainIsADuplicate(DatabaseKind kind) {
    try (TestDatabase db = kind.get();
        Harness h = new Harness(db)) {
      Consumer consumer = h.consumer("warehouse", Harness.EFFECT_AND_FOLLOW, 8);
      Event first = Harness.event("export-completed:814:v1");
      Event second = Harness.event("export-completed:814:v2"); // same key, type and payload
      assertThat(first.payloadText()).isEqualTo(second.payloadText());
      h.produce(first);
      h.produce(second);
      h.runUntil(consumer, () -> h.outcomes.size() == 2);

      h.transport.publish(List.of(first), Duration.ofSeconds(5)); // the broker delivers v1 again
      h.runUntil(consumer, () -> h.outcomes.size() == 3);

      assertThat(h.effects("export-completed:814:v1")).isEqualTo(1);
      assertThat(h.effects("export-completed:814:v2")).isEqualTo(1);
      assertThat(h.outcomes)
          .containsExactly(Outcome.PROCESSED, Outcome.PROCESSED, Outcome.DUPLICATE);
    }
  }

  @ParameterizedTest
  @EnumSource(DatabaseKind.class)
  void aFailingDeliveryInABatchRollsBackAloneAndTheOthersCommitTogether(DatabaseKind kind) {
    try (TestDatabase db = kind.get();
        Harness h = new Harness(db)) {
      Handler poisonThree =
          (tx, e) -> {
            Harness.EFFECT_AND_FOLLOW.handle(tx, e);
            if (e.id().value().endsWith(":3") && e.deliveryCount() == 1) {
              tx.update("INSERT INTO no_such_table VALUES (1)"); // aborts to its savepoint only
            }
          };
      Consumer consumer = h.consumer("warehouse", poisonThree, 10);
      h.transport.declare(Harness.DEST, "warehouse");
      h.once.inTransaction(
          tx -> {
            for (int i = 1; i <= 5; i++) {
              tx.publish(Harness.event("order-paid:" + i));
            }
            return null;
          });
      h.once.newRelay().runOnce();

      assertThat(consumer.runOnce()).as("one batch").isEqualTo(5);
      assertThat(h.outcomes)
          .containsExactly(
              Outcome.PROCESSED,
              Outcome.PROCESSED,
              Outcome.RETRY,
              Outcome.PROCESSED,
              Outcome.PROCESSED);
      assertThat(db.count("SELECT count(*) FROM effects")).isEqualTo(4);
      assertThat(h.markers("warehouse", "order-paid:3")).isZero();

      h.runUntil(consumer, () -> h.outcomes.size() == 6);
      assertThat(h.effects("order-paid:3")).isEqualTo(1);
      assertThat(db.count("SELECT count(*) FROM once_inbox")).isEqualTo(5);
    }
  }

  /**
   * The batch's markers go in with one statement: two copies of one event in the same batch must
   * still act once — the first copy is PROCESSED, the second a DUPLICATE — and the marker and
   * effect exist once. If every copy whose id the statement returned acted, this shows two effects.
   */
  @ParameterizedTest
  @EnumSource(DatabaseKind.class)
  void twoCopiesOfOneEventInTheSameBatchActOnce(DatabaseKind kind) {
    try (TestDatabase db = kind.get();
        Harness h = new Harness(db)) {
      Consumer consumer = h.consumer("warehouse", Harness.EFFECT_AND_FOLLOW, 10);
      h.transport.declare(Harness.DEST, "warehouse");
      Event e = Harness.event("order-paid:twice");
      Event other = Harness.event("order-paid:once");
      h.transport.publish(List.of(e, other, e), Duration.ofSeconds(5)); // the broker repeats e

      assertThat(consumer.runOnce()).as("one batch of three").isEqualTo(3);

      assertThat(h.outcomes)
          .containsExactly(Outcome.PROCESSED, Outcome.PROCESSED, Outcome.DUPLICATE);
      assertThat(h.effects("order-paid:twice")).isEqualTo(1);
      assertThat(h.markers("warehouse", "order-paid:twice")).isEqualTo(1);
      assertThat(h.followRows("warehouse", "order-paid:twice")).isEqualTo(1);
      assertThat(h.effects("order-paid:once")).isEqualTo(1);
    }
  }
}
