package dev.once.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.once.Consumer;
import dev.once.Event;
import dev.once.EventId;
import dev.once.Handler;
import dev.once.Once;
import dev.once.OnceListener;
import dev.once.ReceivedEvent;
import dev.once.RetryPolicy;
import dev.once.spi.Transport;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * What recovery after a crash costs, counted in transactions, on a real transport and database: a
 * consumer process killed in the middle of a full batch of 32, and a poison in a batch of 32 that
 * kills every process that runs it. A killed process is one whose handler stops dead while its
 * connections and broker client are closed under it, as SIGKILL would; the next one is a new {@link
 * Once} on new connections and a new transport, which knows nothing of the first.
 *
 * <p>Subclass it with a few lines per transport and database. Keep the transport's prefetch at 32
 * or more, its redelivery after a lost client short (table queue: a visibility timeout under a
 * second; Kafka: a short revoke timeout).
 */
public abstract class RecoveryContract {
  static final int BATCH = 32;
  static final int MAX_ATTEMPTS = 3;
  private static final Duration LIFE = Duration.ofSeconds(60);
  private static final AtomicInteger counter = new AtomicInteger();

  /** One process: what it runs on and how it dies. */
  protected interface Worker {
    DataSource dataSource();

    Transport transport();

    /** Closes its broker client, then its connections, under whatever it is running. */
    void kill();

    /** The worker of {@code pool} and {@code transport}: killing it closes the transport first. */
    static <P extends DataSource & AutoCloseable> Worker of(P pool, Transport transport) {
      return new Worker() {
        @Override
        public DataSource dataSource() {
          return pool;
        }

        @Override
        public Transport transport() {
          return transport;
        }

        @Override
        public void kill() {
          transport.close();
          try {
            pool.close();
          } catch (Exception e) {
            throw new IllegalStateException("closing the worker's pool", e);
          }
        }
      };
    }
  }

  /**
   * Batches a new process runs again although they were processed, because the transport hands out
   * again what lies behind an unsettled delivery (Kafka: the committed offset stays below the
   * poison until it is dead-lettered, so each takeover fetches what follows it once more, a batch
   * of {@code DUPLICATE}s): one transaction each, allowed per life. 0 by default.
   */
  protected int duplicateBatchesPerLife() {
    return 0;
  }

  /**
   * How long a consumer's first poll collects what came back before it runs it as one batch (the
   * batch runs at once when it is full). 300 ms by default; a transport that hands a crash's
   * deliveries back over several requests (SQS: 10 a receive) needs longer on a loaded machine,
   * where four receives can take more than 300 ms.
   */
  protected Duration batchLinger() {
    return Duration.ofMillis(300);
  }

  /** The test's database with Once's schema, for the setup and the checks. */
  protected abstract DataSource dataSource();

  /** A new process: new connections to the test database, a new transport on the test broker. */
  protected abstract Worker newWorker();

  /**
   * After a crash of a full batch with no poison, its 32 deliveries cost at most 2 transactions.
   */
  @Test
  void aBatchWhoseProcessWasKilledIsProcessedAgainInAtMostTwoTransactions() throws Exception {
    Scenario s = new Scenario(-1);
    s.life(9); // dies at its 10th delivery, nothing committed
    s.batches.clear();
    long spent = s.drain();
    assertEquals(BATCH, s.effects(), "effects");
    assertEquals(BATCH, s.count("SELECT count(DISTINCT event_id) FROM " + s.table), "distinct");
    s.checkClean(BATCH, 0);
    System.out.printf("%s: %d transactions after the crash%n", getClass().getSimpleName(), spent);
    assertTrue(
        spent <= 2,
        "transactions after the crash: " + spent + " (at most 2), batches run " + s.batches);
  }

  /**
   * A poison in a batch of 32 that kills every process that runs it is the only dead letter; the 31
   * others are processed once, and the crashes cost a logarithmic number of transactions, not one
   * or two per delivery: at most {@code 2·log2(32) + 2} groups (the fresh batch, the batch again,
   * the halves with and without the poison down to one, and room for a batch that a transport hands
   * back in two pieces), each a raise and a run, then two per attempt it is given alone and one for
   * its dead letter. It needs 28 when every batch comes back whole.
   */
  @Test
  void aPoisonInABatchIsFoundByBisectionAndIsTheOnlyDeadLetter() throws Exception {
    Scenario s = new Scenario(9);
    int lives = 0;
    long spent = 0;
    while (s.live() && lives++ < 16) {
      spent += s.life(-1);
    }
    assertEquals(BATCH - 1, s.effects(), "effects after " + lives + " lives");
    assertEquals(BATCH - 1, s.count("SELECT count(DISTINCT event_id) FROM " + s.table), "distinct");
    s.checkClean(BATCH - 1, 1);
    assertEquals(
        1,
        s.count(
            "SELECT count(*) FROM once_dead_letter WHERE consumer_id = ? AND event_id = ?",
            s.consumerId,
            s.poison),
        "the poison is the dead letter");
    long bound = 2 * (2 * 5 + 2) + 2L * MAX_ATTEMPTS + 1 + (lives - 1L) * duplicateBatchesPerLife();
    System.out.printf(
        "%s: %d transactions in %d lives to find the poison%n",
        getClass().getSimpleName(), spent, lives);
    assertTrue(
        spent <= bound,
        "transactions: "
            + spent
            + " in "
            + lives
            + " lives (bound "
            + bound
            + "), batches run "
            + s.batches);
  }

  /** 32 events on a destination of their own, and the lives of the processes that consume them. */
  private final class Scenario {
    final String destination = unique("recovery");
    final String consumerId = unique("c");
    final String table = "recovery_effects_" + counter.incrementAndGet();
    final List<String> ids = new ArrayList<>();
    final List<Integer> batches = new CopyOnWriteArrayList<>();
    final String poison;

    /** {@code poisonAt}: the index of the event that kills its process every time, or -1. */
    Scenario(int poisonAt) throws Exception {
      for (int i = 0; i < BATCH; i++) {
        ids.add(EventId.of("order-paid", unique("o")).value());
      }
      poison = poisonAt < 0 ? null : ids.get(poisonAt);
      execute("CREATE TABLE " + table + " (event_id varchar(200) NOT NULL)");
      Worker w = newWorker();
      try (Once once = once(w)) {
        once.consumer(consumerId).subscribe(destination, (tx, e) -> {}).build().close();
        once.useTransaction(
            tx -> {
              for (int i = 0; i < BATCH; i++) {
                tx.publish(Event.of(new EventId(ids.get(i)), destination, "k" + i, "T", "{}"));
              }
            });
        assertEquals(BATCH, once.newRelay().runOnce(), "relay published the batch");
      } finally {
        w.kill();
      }
    }

    Once once(Worker w) {
      return Once.builder()
          .dataSource(w.dataSource())
          .transport(w.transport())
          .destinations(destination)
          .build();
    }

    /** Whether there is something left to process. */
    boolean live() throws SQLException {
      return effects() + deadLetters() < BATCH;
    }

    /**
     * One process: runs the consumer until it dies (at its {@code dieAt}-th delivery, counting from
     * 0, or at the poison) or there is nothing left; returns the transactions it spent.
     */
    long life(int dieAt) throws Exception {
      Worker w = newWorker();
      TransactionCounter counted =
          new TransactionCounter(w.dataSource(), TransactionCounter.CONSUMER_TABLES);
      CountDownLatch dying = new CountDownLatch(1);
      CountDownLatch dead = new CountDownLatch(1);
      AtomicInteger handled = new AtomicInteger();
      Handler handler =
          (tx, e) -> {
            if (e.id().value().equals(poison) || handled.getAndIncrement() == dieAt) {
              dying.countDown();
              dead.await(); // never returns before its connections and broker client are gone
              throw new Error("this process was killed");
            }
            tx.update("INSERT INTO " + table + " VALUES (?)", e.id().value());
          };
      Once once =
          Once.builder()
              .dataSource(counted)
              .transport(w.transport())
              .destinations(destination)
              .listener(
                  new OnceListener() {
                    @Override
                    public void received(List<ReceivedEvent> batch) {
                      batches.add(batch.size());
                    }
                  })
              .build();
      Consumer consumer =
          once.consumer(consumerId)
              .subscribe(destination, handler)
              .batchSize(BATCH)
              .workers(1)
              // a first poll that waits, then lingers: what came back arrives as one batch
              .idleWait(Duration.ofSeconds(2))
              .batchLinger(batchLinger())
              .retry(RetryPolicy.builder().maxAttempts(MAX_ATTEMPTS).build())
              .build()
              .start();
      boolean died = await(() -> dying.getCount() == 0 || !safeLive());
      assertTrue(died, "the process neither died nor finished within " + LIFE);
      if (dying.getCount() == 0) {
        w.kill();
        dead.countDown();
      }
      consumer.close();
      once.close();
      if (dying.getCount() != 0) {
        w.kill();
      }
      return counted.transactions();
    }

    /** Lives of processes that do not die, until everything is processed; their transactions. */
    long drain() throws Exception {
      long spent = 0;
      for (int lives = 0; live() && lives < 3; lives++) {
        spent += life(-1);
      }
      return spent;
    }

    boolean safeLive() {
      try {
        return live();
      } catch (SQLException e) {
        return true;
      }
    }

    long effects() throws SQLException {
      return count("SELECT count(*) FROM " + table);
    }

    long deadLetters() throws SQLException {
      return count("SELECT count(*) FROM once_dead_letter WHERE consumer_id = ?", consumerId);
    }

    /** Markers match the effects; nothing is left suspected or counted; the dead letters. */
    void checkClean(int markers, int deadLetters) throws SQLException {
      assertEquals(
          markers,
          count("SELECT count(*) FROM once_inbox WHERE consumer_id = ?", consumerId),
          "markers");
      assertEquals(deadLetters, deadLetters(), "dead letters");
      assertEquals(
          0,
          count("SELECT count(*) FROM once_suspect WHERE consumer_id = ?", consumerId),
          "suspects left");
      assertEquals(
          0,
          count("SELECT count(*) FROM once_attempt WHERE consumer_id = ?", consumerId),
          "attempts left");
    }

    long count(String sql, Object... params) throws SQLException {
      return RecoveryContract.this.count(sql, params);
    }
  }

  private static boolean await(BooleanSupplier done) throws InterruptedException {
    long deadline = System.nanoTime() + LIFE.toNanos();
    while (System.nanoTime() < deadline) {
      if (done.getAsBoolean()) {
        return true;
      }
      TimeUnit.MILLISECONDS.sleep(20);
    }
    return false;
  }

  /** A name no other test uses. */
  protected static String unique(String base) {
    return base + "-" + ProcessHandle.current().pid() + "-" + counter.incrementAndGet();
  }

  private void execute(String sql) throws SQLException {
    ContractSql.execute(dataSource(), sql);
  }

  private long count(String sql, Object... params) throws SQLException {
    return ContractSql.count(dataSource(), sql, params);
  }
}
