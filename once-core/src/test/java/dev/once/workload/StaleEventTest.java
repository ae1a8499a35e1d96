package dev.once.workload;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.once.Consumer;
import dev.once.Event;
import dev.once.EventId;
import dev.once.Handler;
import dev.once.OnceListener;
import dev.once.Outcome;
import dev.once.ReceivedEvent;
import dev.once.test.TestDatabase;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class StaleEventTest {
  private static final int VERSIONS = 40;
  private static final int ENTITIES = 5;

  /** Sets the entity's state to the event's version, guarded by applyIfNewer. */
  private static final Handler VERSIONED =
      (tx, e) -> {
        long version = version(e);
        if (!tx.applyIfNewer("order", e.key(), version)) {
          return;
        }
        tx.update("UPDATE state SET version = ? WHERE id = ?", version, e.key());
      };

  /** The same without the guard: the last writer wins, whatever its version. */
  private static final Handler NAIVE =
      (tx, e) -> tx.update("UPDATE state SET version = ? WHERE id = ?", version(e), e.key());

  @Test
  void olderVersionsDeliveredInParallelAndOutOfOrderAreStaleAndNeverOverwriteNewerState()
      throws Exception {
    Map<Outcome, AtomicLong> outcomes = run(VERSIONED, true);
    try (Rig rig = lastRig) {
      assertThat(rig.db.count("SELECT count(*) FROM state WHERE version = " + VERSIONS))
          .as("every entity ends at its newest version")
          .isEqualTo(ENTITIES);
      long processed = outcomes.get(Outcome.PROCESSED).get();
      long stale = outcomes.get(Outcome.STALE).get();
      assertThat(processed + stale).isEqualTo(ENTITIES * VERSIONS);
      assertThat(stale).as("shuffled versions: some arrive after a newer one").isPositive();
      assertThat(rig.db.count("SELECT count(*) FROM once_inbox"))
          .as("a stale event is recorded: its marker commits")
          .isEqualTo(ENTITIES * VERSIONS);
    }
  }

  @Test
  void withoutTheVersionCheckAnOlderEventOverwritesNewerState() throws Exception {
    run(NAIVE, false);
    try (Rig rig = lastRig) {
      assertThat(rig.db.count("SELECT count(*) FROM state WHERE version = " + VERSIONS))
          .isLessThan(ENTITIES);
    }
  }

  private Rig lastRig;

  /** Publishes every version of every entity in shuffled order; runs the consumer to the end. */
  private Map<Outcome, AtomicLong> run(Handler handler, boolean parallel) throws Exception {
    Map<Outcome, AtomicLong> outcomes = new ConcurrentHashMap<>();
    for (Outcome o : Outcome.values()) {
      outcomes.put(o, new AtomicLong());
    }
    OnceListener counter =
        new OnceListener() {
          @Override
          public void outcome(ReceivedEvent event, Outcome outcome, Duration took) {
            outcomes.get(outcome).incrementAndGet();
          }
        };
    Rig rig = new Rig(TestDatabase.embedded(), b -> b.listener(counter));
    lastRig = rig;
    rig.db.execute("CREATE TABLE state (id text PRIMARY KEY, version bigint)");
    for (int i = 0; i < ENTITIES; i++) {
      rig.db.execute("INSERT INTO state VALUES ('" + i + "', 0)");
    }
    Consumer consumer =
        rig.once
            .consumer("projector")
            .subscribe("orders", handler)
            .workers(parallel ? 6 : 1)
            .batchSize(parallel ? 2 : 1)
            .idleWait(Duration.ofMillis(50))
            .build();
    List<Event> events = new ArrayList<>();
    for (int i = 0; i < ENTITIES; i++) {
      for (int v = 1; v <= VERSIONS; v++) {
        events.add(
            Event.of(
                EventId.of("order-changed", i + "-" + v),
                "orders",
                null,
                "OrderChanged",
                "{\"id\":\"" + i + "\",\"version\":" + v + "}"));
      }
    }
    Collections.shuffle(events, new Random(7));
    rig.once.inTransaction(
        tx -> {
          events.forEach(e -> tx.publish(e.withHeaders(Map.of()).key() == null ? keyed(e) : e));
          return null;
        });
    rig.once.newRelay().runOnce();
    if (parallel) {
      consumer.start();
      await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> rig.db.count("SELECT count(*) FROM once_queue") == 0);
      consumer.close();
    } else {
      rig.drain(consumer);
    }
    return outcomes;
  }

  /** The entity id as key, published in shuffled order: the queue hands them out of order. */
  private static Event keyed(Event e) {
    String id = e.payloadText().replaceAll(".*\"id\":\"(\\d+)\".*", "$1");
    return new Event(e.id(), e.destination(), id, e.type(), e.payload(), e.headers());
  }

  private static long version(ReceivedEvent e) {
    return Long.parseLong(e.payloadText().replaceAll(".*\"version\":(\\d+).*", "$1"));
  }
}
