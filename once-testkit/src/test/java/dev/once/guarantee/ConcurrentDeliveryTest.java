package dev.once.guarantee;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.once.Consumer;
import dev.once.Event;
import dev.once.Outcome;
import dev.once.internal.PostgresDialect;
import dev.once.test.TestDatabase;
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
      db.execute("CREATE TABLE broken_inbox (consumer_id text, event_id text)"); // no unique key
      try (Harness h =
          new Harness(db, b -> b.dialect(new CheckThenInsert()), new Collide(WORKERS))) {
        String id = "order-paid:2";
        deliverConcurrently(h, Harness.event(id));

        assertThatThrownBy(() -> assertThat(h.effects(id)).as("effects").isEqualTo(1))
            .isInstanceOf(AssertionError.class);
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

  /**
   * A deliberately broken inbox: look for the marker, insert it if absent, no unique key. The check
   * reads a snapshot taken when the statement starts; the pause stands for the time between a
   * separate SELECT and INSERT in application code, so workers that start together all pass.
   */
  private static final class CheckThenInsert extends PostgresDialect {
    @Override
    public String insertMarkers() {
      return """
          WITH v AS (SELECT ?::text AS consumer_id, unnest(?::text[]) AS event_id),
               pause AS (SELECT pg_sleep(0.3))
          INSERT INTO broken_inbox
          SELECT v.consumer_id, v.event_id FROM v, pause
           WHERE NOT EXISTS (SELECT 1 FROM broken_inbox b
                              WHERE b.consumer_id = v.consumer_id AND b.event_id = v.event_id)
          RETURNING event_id
          """;
    }

    @Override
    public String deleteMarker() {
      return "DELETE FROM broken_inbox WHERE consumer_id = ? AND event_id = ?";
    }
  }
}
