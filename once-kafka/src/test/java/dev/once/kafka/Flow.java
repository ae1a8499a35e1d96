package dev.once.kafka;

import dev.once.Consumer;
import dev.once.Event;
import dev.once.EventId;
import dev.once.Once;
import dev.once.OnceListener;
import dev.once.Outcome;
import dev.once.ReceivedEvent;
import dev.once.RetentionPolicy;
import dev.once.test.TestDatabase;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Events flowing producer → outbox → relay → Kafka → consumer into an effects table without a
 * unique constraint (a doubled effect shows as an extra row) that records the order of processing
 * per key ({@code seq} is the event's number within its key).
 */
final class Flow {
  private Flow() {}

  static void createEffects(TestDatabase db) {
    db.execute(
        "CREATE TABLE effects (n bigserial PRIMARY KEY, event_id text NOT NULL, k text NOT NULL,"
            + " seq int NOT NULL)");
  }

  /** Counts outcomes by kind, across every consumer that uses it. */
  static final class Outcomes implements OnceListener {
    final Map<Outcome, AtomicLong> counts = new ConcurrentHashMap<>();

    @Override
    public void outcome(ReceivedEvent event, Outcome outcome, Duration took) {
      counts.computeIfAbsent(outcome, o -> new AtomicLong()).incrementAndGet();
    }

    long get(Outcome o) {
      AtomicLong n = counts.get(o);
      return n == null ? 0 : n.get();
    }

    @Override
    public String toString() {
      return counts.toString();
    }
  }

  static Once once(TestDatabase db, KafkaTransport transport, String dest, OnceListener... ls) {
    var b =
        Once.builder()
            .dataSource(db.dataSource())
            .transport(transport)
            .destinations(dest)
            .relayIdleWait(Duration.ofMillis(100))
            .confirmTimeout(Duration.ofSeconds(10))
            .retention(RetentionPolicy.DEFAULT);
    for (OnceListener l : ls) {
      b.listener(l);
    }
    return b.build();
  }

  static Consumer consumer(Once once, String dest, int workers) {
    return once.consumer("warehouse")
        .subscribe(
            dest,
            (tx, e) -> {
              String[] parts = e.id().value().split(":");
              tx.update(
                  "INSERT INTO effects (event_id, k, seq) VALUES (?, ?, ?)",
                  e.id().value(),
                  e.key(),
                  Integer.parseInt(parts[parts.length - 1]));
            })
        .workers(workers)
        .batchSize(50)
        .idleWait(Duration.ofMillis(200))
        .build();
  }

  /** Event {@code i} of key {@code k<i % keys>}; its id ends with its number within the key. */
  static Event event(String dest, int i, int keys) {
    return Event.of(
        EventId.of("order", dest, i % keys, i / keys), dest, "k" + (i % keys), "Order", "{}");
  }

  /** Writes events from..to, 50 per producer transaction. */
  static void produce(Once once, String dest, int from, int to, int keys) {
    for (int start = from; start < to; start += 50) {
      int s = start;
      once.inTransaction(
          tx -> {
            for (int i = s; i < Math.min(to, s + 50); i++) {
              tx.publish(event(dest, i, keys));
            }
            return null;
          });
    }
  }

  static long effects(TestDatabase db) {
    return db.count("SELECT count(*) FROM effects");
  }

  static long distinctEffects(TestDatabase db) {
    return db.count("SELECT count(DISTINCT event_id) FROM effects");
  }

  /** Pairs of effects of one key processed out of their order. */
  static long orderViolations(TestDatabase db) {
    return db.count(
        "SELECT count(*) FROM (SELECT seq, lag(seq) OVER (PARTITION BY k ORDER BY n) AS prev"
            + " FROM effects) t WHERE prev >= seq");
  }

  static long pending(TestDatabase db) {
    return db.count("SELECT count(*) FROM once_outbox WHERE sent_at IS NULL");
  }
}
