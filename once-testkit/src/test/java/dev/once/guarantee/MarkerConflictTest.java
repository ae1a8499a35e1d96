package dev.once.guarantee;

import static org.assertj.core.api.Assertions.assertThat;

import dev.once.Consumer;
import dev.once.Event;
import dev.once.EventId;
import dev.once.Once;
import dev.once.OnceListener;
import dev.once.Outcome;
import dev.once.ReceivedEvent;
import dev.once.RetryPolicy;
import dev.once.spi.Delivery;
import dev.once.spi.PublishResult;
import dev.once.spi.Receiver;
import dev.once.spi.Transport;
import dev.once.tablequeue.TableQueueTransport;
import dev.once.test.TestDatabase;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Concurrent marker inserts and the transient rollbacks they cause: InnoDB (MariaDB/MySQL) at
 * REPEATABLE READ takes shared next-key locks on a duplicate key, so transactions inserting the
 * same marker can deadlock. A deadlock rolls the batch back, the listener hears it ({@link
 * OnceListener#transientRollback}) and the deliveries run again; every event still has exactly one
 * effect. The counts are printed (one line per case) for docs/MARIADB.md; {@code
 * -Donce.conflicts.rounds=N} runs more rounds.
 */
class MarkerConflictTest {
  private static final int WORKERS = 8;
  private static final int BATCH = 32;
  private static final int ROUNDS = Integer.getInteger("once.conflicts.rounds", 10);

  /** What each of the 8 workers is handed in a round. */
  enum Deliveries {
    /** Events of their own: no two workers ever insert the same marker. */
    DISTINCT,
    /** The same 32 events, to all 8 at the same instant. */
    SAME,
    /** 32 events each, every worker's window 4 events further than the previous one's. */
    OVERLAPPING,
    /** As SAME, and the handler fails the first time it meets one event in 16. */
    SAME_SOME_FAIL
  }

  /**
   * A deadlock forced on the markers: an outside transaction (heavier, so that InnoDB rolls the
   * consumer back) holds the marker of the batch's second event, the consumer inserts the first and
   * waits for the second, then the outsider inserts the first. The consumer's batch is rolled back,
   * the listener hears it once, and both events then run once each.
   */
  @Test
  void aDeadlockOnTheMarkersIsHeardAndTheBatchThenRunsOnce() throws Exception {
    try (TestDatabase db = TestDatabase.mariadb();
        TableQueueTransport transport =
            TableQueueTransport.builder(db.dataSource())
                .visibilityTimeout(Duration.ofSeconds(30))
                .build()) {
      db.execute("CREATE TABLE effects (event_id varchar(200) NOT NULL)");
      db.execute("CREATE TABLE ballast (n int)");
      Heard heard = new Heard();
      try (Once once =
          Once.builder()
              .dataSource(db.dataSource())
              .transport(transport)
              .destinations("orders")
              .listener(heard)
              .build()) {
        Consumer consumer =
            once.consumer("warehouse")
                .subscribe(
                    "orders",
                    (tx, e) ->
                        tx.update("INSERT INTO effects (event_id) VALUES (?)", e.id().value()))
                .batchSize(2)
                .idleWait(Duration.ofMillis(100))
                .retry(
                    RetryPolicy.builder()
                        .backoff(Duration.ofMillis(50), Duration.ofMillis(200))
                        .build())
                .build();
        once.inTransaction(
            tx -> {
              tx.publish(event("orders", "order-paid:1"));
              return tx.publish(event("orders", "order-paid:2"));
            });
        while (once.newRelay().runOnce() > 0) {
          // until the outbox is empty
        }
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try (Connection outsider = db.dataSource().getConnection();
            Statement s = outsider.createStatement()) {
          outsider.setAutoCommit(false);
          for (int i = 0; i < 20; i++) { // weight: InnoDB rolls back the lighter transaction
            s.execute("INSERT INTO ballast SELECT seq FROM seq_1_to_100");
          }
          s.execute(marker("order-paid:2"));
          Future<Integer> batch = pool.submit(consumer::runOnce);
          awaitLockWait(db);
          s.execute(marker("order-paid:1")); // the cycle: InnoDB rolls the consumer back
          outsider.rollback();
          assertThat(batch.get(30, TimeUnit.SECONDS)).isEqualTo(2);
        } finally {
          pool.shutdownNow();
        }
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (heard.count(Outcome.PROCESSED) < 2 && System.nanoTime() < deadline) {
          consumer.runOnce();
        }
        consumer.close();
      }

      assertThat(heard.rollbacks).hasSize(1);
      assertThat(heard.rollbacks.get(0).getErrorCode()).isEqualTo(1213); // ER_LOCK_DEADLOCK
      assertThat(heard.rollbacks.get(0).getSQLState()).isEqualTo("40001");
      assertThat(heard.count(Outcome.PROCESSED)).isEqualTo(2);
      assertThat(db.count("SELECT count(*) FROM effects")).isEqualTo(2);
      assertThat(db.count("SELECT count(DISTINCT event_id) FROM effects")).isEqualTo(2);
    }
  }

  private static String marker(String eventId) {
    return "INSERT INTO once_inbox (consumer_id, event_id) VALUES ('warehouse', '" + eventId + "')";
  }

  /**
   * Waits until the consumer waits for the batch's second marker (it inserted the first one). Read
   * from the process list, by its statement: MariaDB 10.11 does not always list a transaction that
   * waits for a row lock in {@code information_schema.innodb_trx} (seen here: the consumer's INSERT
   * in state "Update" for 30 s, its transaction absent from that table).
   */
  private static void awaitLockWait(TestDatabase db) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (db.count(
            """
            SELECT count(*) FROM information_schema.processlist
             WHERE db = ? AND command = 'Query'
               AND info LIKE 'INSERT INTO once_inbox%order-paid:2%'
            """,
            db.schema())
        == 0) {
      assertThat(System.nanoTime()).as("the consumer waits for the marker").isLessThan(deadline);
      Thread.sleep(20);
    }
  }

  @ParameterizedTest
  @EnumSource(Deliveries.class)
  void eightWorkersOnMariaDbMakeOneEffectPerEventAndCountTheirRollbacks(Deliveries mode)
      throws Exception {
    measure(DatabaseKind.MARIADB, mode);
  }

  /** The same on PostgreSQL, for comparison: its marker insert takes no gap locks. */
  @ParameterizedTest
  @EnumSource(Deliveries.class)
  void eightWorkersOnPostgresqlMakeOneEffectPerEventAndCountTheirRollbacks(Deliveries mode)
      throws Exception {
    measure(DatabaseKind.LOCAL_SERVER, mode);
  }

  private static void measure(DatabaseKind kind, Deliveries mode) throws Exception {
    try (TestDatabase db = kind.get();
        Rounds transport = new Rounds(mode)) {
      db.execute(
          "CREATE TABLE effects (event_id varchar(200) NOT NULL, n bigint NOT NULL)"
              + (db.isMariaDb() ? " ENGINE = InnoDB" : ""));
      Heard heard = new Heard();
      Set<Long> failedOnce = ConcurrentHashMap.newKeySet();
      long started = System.nanoTime();
      try (Once once =
          Once.builder()
              .dataSource(db.dataSource())
              .transport(transport)
              .destinations("orders", "dispatch")
              .listener(heard)
              .build()) {
        List<Consumer> consumers = new ArrayList<>();
        for (int i = 0; i < WORKERS; i++) {
          consumers.add(
              once.consumer("warehouse")
                  .subscribe(
                      "orders",
                      (tx, e) -> {
                        long n = Long.parseLong(e.key());
                        if (mode == Deliveries.SAME_SOME_FAIL && n % 16 == 0 && failedOnce.add(n)) {
                          throw new IllegalStateException("first meeting with " + n + " fails");
                        }
                        tx.update(
                            "INSERT INTO effects (event_id, n) VALUES (?, ?)", e.id().value(), n);
                        tx.publish(
                            e.follow("queued")
                                .destination("dispatch")
                                .type("DispatchQueued")
                                .payload("{}")
                                .build());
                      })
                  .batchSize(BATCH)
                  .idleWait(Duration.ofMillis(50))
                  .retry(
                      RetryPolicy.builder()
                          .backoff(Duration.ofMillis(10), Duration.ofMillis(50))
                          .build())
                  .build());
        }
        ExecutorService pool = Executors.newFixedThreadPool(WORKERS);
        try {
          List<Future<?>> running = new ArrayList<>();
          for (Consumer c : consumers) {
            running.add(
                pool.submit(
                    () -> {
                      for (int r = 0; r < ROUNDS; r++) {
                        c.runOnce();
                      }
                      return null;
                    }));
          }
          for (Future<?> f : running) {
            f.get(5, TimeUnit.MINUTES);
          }
          // then what came back (rollbacks, failures), one worker at a time, until none is left
          long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
          while (transport.pending() > 0 && System.nanoTime() < deadline) {
            for (Consumer c : consumers) {
              c.runOnce();
            }
          }
        } finally {
          pool.shutdownNow();
          consumers.forEach(Consumer::close);
        }
      }
      double seconds = (System.nanoTime() - started) / 1e9;
      long events = transport.universe();
      System.out.printf(
          "marker conflicts: %s, %s: %d transient rollbacks (%s) in %d batch transactions;"
              + " %d events, %d deliveries, 8 workers x %d rounds of %d, %.1f s%n",
          kind,
          mode,
          heard.rollbacks.size(),
          heard.states(),
          heard.batches.get(),
          events,
          transport.handedOut.get(),
          ROUNDS,
          BATCH,
          seconds);

      assertThat(transport.pending()).as("deliveries left").isZero();
      assertThat(db.count("SELECT count(*) FROM effects")).as("effects").isEqualTo(events);
      assertThat(db.count("SELECT count(DISTINCT n) FROM effects"))
          .as("events with an effect")
          .isEqualTo(events);
      assertThat(heard.count(Outcome.PROCESSED)).isEqualTo(events);
    }
  }

  private static Event event(String destination, String id) {
    return Event.of(new EventId(id), destination, "1", "OrderPaid", "{}");
  }

  /** Records rollbacks, outcomes and batch transactions. */
  private static final class Heard implements OnceListener {
    final List<SQLException> rollbacks = new CopyOnWriteArrayList<>();
    final List<Outcome> outcomes = new CopyOnWriteArrayList<>();
    final AtomicLong batches = new AtomicLong();

    @Override
    public void received(List<ReceivedEvent> batch) {
      batches.incrementAndGet();
    }

    @Override
    public void transientRollback(List<ReceivedEvent> batch, SQLException cause) {
      rollbacks.add(cause);
    }

    @Override
    public void outcome(ReceivedEvent event, Outcome outcome, Duration sinceReceived) {
      outcomes.add(outcome);
    }

    long count(Outcome outcome) {
      return outcomes.stream().filter(o -> o == outcome).count();
    }

    String states() {
      return rollbacks.isEmpty()
          ? "none"
          : rollbacks.stream()
              .map(e -> e.getSQLState() + "/" + e.getErrorCode())
              .distinct()
              .sorted()
              .toList()
              .toString();
    }
  }

  /**
   * A transport handing each of 8 receivers a batch per round, all 8 released at the same instant
   * (a barrier); a delivery nacked comes back with the receiver's next poll. Publishing confirms at
   * once (the outgoing events go nowhere).
   */
  private static final class Rounds implements Transport {
    private final Deliveries mode;
    private final CyclicBarrier barrier = new CyclicBarrier(WORKERS);
    private final AtomicInteger receivers = new AtomicInteger();
    private final AtomicLong pending = new AtomicLong();
    final AtomicLong handedOut = new AtomicLong();

    Rounds(Deliveries mode) {
      this.mode = mode;
    }

    /** Event numbers worker {@code w} gets in round {@code r}. */
    private long first(int w, int r) {
      return switch (mode) {
        case DISTINCT -> ((long) r * WORKERS + w) * BATCH;
        case SAME, SAME_SOME_FAIL -> (long) r * BATCH;
        case OVERLAPPING -> (long) r * BATCH + (long) w * (BATCH / WORKERS);
      };
    }

    /** How many different events the rounds hand out. */
    long universe() {
      return switch (mode) {
        case DISTINCT -> (long) ROUNDS * WORKERS * BATCH;
        case SAME, SAME_SOME_FAIL -> (long) ROUNDS * BATCH;
        case OVERLAPPING -> (long) ROUNDS * BATCH + (long) (WORKERS - 1) * (BATCH / WORKERS);
      };
    }

    long pending() {
      return pending.get();
    }

    @Override
    public String name() {
      return "rounds";
    }

    @Override
    public void declare(String destination, String consumerId) {}

    @Override
    public PublishResult publish(List<Event> events, Duration confirmTimeout) {
      return PublishResult.allConfirmed(events.size());
    }

    @Override
    public Receiver receiver(String destination, String consumerId) {
      int w = receivers.getAndIncrement();
      List<Delivery> back = new ArrayList<>();
      return new Receiver() {
        private int round;

        @Override
        public synchronized List<Delivery> poll(int max, Duration wait) {
          List<Delivery> got = new ArrayList<>(back);
          pending.addAndGet(-back.size());
          back.clear();
          if (round < ROUNDS) {
            try {
              barrier.await(60, TimeUnit.SECONDS);
            } catch (Exception e) {
              throw new IllegalStateException("the workers did not meet", e);
            }
            long from = first(w, round++);
            for (long n = from; n < from + BATCH; n++) {
              Event e =
                  Event.of(
                      EventId.of("order-paid", n), destination, Long.toString(n), "Paid", "{}");
              got.add(new Delivery(e, 1, false, n));
            }
            handedOut.addAndGet(BATCH);
          }
          return got;
        }

        @Override
        public void ack(List<Delivery> deliveries) {}

        @Override
        public synchronized void nack(List<Delivery> deliveries, Duration delay) {
          for (Delivery d : deliveries) {
            back.add(new Delivery(d.event(), d.deliveryCount() + 1, true, d.handle()));
            pending.incrementAndGet();
          }
        }

        @Override
        public void close() {}
      };
    }

    @Override
    public void close() {}
  }
}
