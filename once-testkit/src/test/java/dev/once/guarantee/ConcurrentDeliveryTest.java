package dev.once.guarantee;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.once.Consumer;
import dev.once.Event;
import dev.once.Outcome;
import dev.once.jdbc.Dialect;
import dev.once.test.TestDatabase;
import dev.once.testkit.CheckThenInsertInbox;
import dev.once.testkit.Collide;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Several workers handed the same event at the same instant: one effect, the rest DUPLICATE. */
class ConcurrentDeliveryTest {
  private static final int WORKERS = 8;

  @ParameterizedTest
  @EnumSource(DatabaseKind.class)
  void eightWorkersGivenOneEventAtTheSameInstantMakeOneEffectAndSevenDuplicates(DatabaseKind kind)
      throws Exception {
    try (TestDatabase db = kind.get();
        Harness h = new Harness(db, new Collide(WORKERS))) {
      String id = "order-paid:1";
      deliverConcurrently(h, Harness.event(id));

      assertThat(h.effects(id)).as("effects").isEqualTo(1);
      assertThat(h.markers("warehouse", id)).as("markers").isEqualTo(1);
      assertThat(h.followRows("warehouse", id)).as("outgoing events").isEqualTo(1);
      assertThat(h.count(Outcome.PROCESSED)).isEqualTo(1);
      assertThat(h.count(Outcome.DUPLICATE)).isEqualTo(WORKERS - 1);
    }
  }

  /** The same check fails for an inbox that checks first and inserts afterwards. */
  @ParameterizedTest
  @EnumSource(DatabaseKind.class)
  void theSameCheckCatchesACheckThenInsertInbox(DatabaseKind kind) throws Exception {
    try (TestDatabase db = kind.get()) {
      Dialect broken = CheckThenInsertInbox.in(db);
      try (Harness h = new Harness(db, b -> b.dialect(broken), new Collide(WORKERS))) {
        String id = "order-paid:2";
        deliverConcurrently(h, Harness.event(id));

        assertThatThrownBy(() -> assertThat(h.effects(id)).as("effects").isEqualTo(1))
            .isInstanceOf(AssertionError.class);
        // the broken inbox lets every worker look before any inserts: all of them act
        assertThat(h.effects(id)).as("every worker acted").isEqualTo(WORKERS);
      }
    }
  }

  /** One copy through the outbox, the others straight into the broker; 8 workers poll at once. */
  private static void deliverConcurrently(Harness h, Event event) throws Exception {
    List<Consumer> consumers = new ArrayList<>();
    for (int i = 0; i < WORKERS; i++) {
      consumers.add(h.consumer("warehouse", Harness.EFFECT_AND_FOLLOW, 1));
    }
    h.produce(event);
    for (int i = 1; i < WORKERS; i++) {
      h.transport.publish(List.of(event), Duration.ofSeconds(5));
    }
    ExecutorService pool = Executors.newFixedThreadPool(WORKERS);
    try {
      List<Future<Integer>> handled = new ArrayList<>();
      for (Consumer c : consumers) {
        handled.add(pool.submit(c::runOnce));
      }
      for (Future<Integer> f : handled) {
        assertThat(f.get(30, TimeUnit.SECONDS)).isEqualTo(1);
      }
    } finally {
      pool.shutdownNow();
      consumers.forEach(Consumer::close);
    }
  }
}
