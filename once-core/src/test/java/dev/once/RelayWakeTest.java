package dev.once;

import static org.assertj.core.api.Assertions.assertThat;

import dev.once.spi.ForwardingTransport;
import dev.once.spi.PublishResult;
import dev.once.spi.Receiver;
import dev.once.spi.Transport;
import dev.once.tablequeue.TableQueueTransport;
import dev.once.test.TestDatabase;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * A commit wakes one relay of its process, not all of them: the others would only find its
 * partitions locked, count themselves contended and look again 5 ms later. And no commit is lost:
 * one that comes while a relay is busy wakes a waiting one, or the busy one looks again as soon as
 * its batch ends, though it sent nothing. The relays' idle wait is 60 s: anything published sooner
 * was woken.
 */
class RelayWakeTest {
  private static final Duration IDLE = Duration.ofSeconds(60);
  private static final Duration PROMPT = Duration.ofSeconds(10);

  @Test
  void oneCommitWakesOneOfTwoWaitingRelays() throws Exception {
    try (TestDatabase db = TestDatabase.embedded();
        TableQueueTransport queue = TableQueueTransport.create(db.dataSource())) {
      Set<Thread> relayThreads = ConcurrentHashMap.newKeySet();
      try (Once once = once(transactionsOnRelayThreads(db.dataSource(), relayThreads), queue)) {
        once.newRelay().start();
        once.newRelay().start();
        awaitRelaysWaiting(2);
        relayThreads.clear();
        publish(once, "order-paid", 1);
        awaitTrue(() -> sent(db) == 1, PROMPT);
        awaitRelaysWaiting(2);
        assertThat(relayThreads).as("relays that ran a batch after the commit").hasSize(1);
      }
    }
  }

  @Test
  void aCommitWhileOneRelayWaitsForItsBrokerWakesTheOther() throws Exception {
    try (TestDatabase db = TestDatabase.embedded();
        TableQueueTransport queue = TableQueueTransport.create(db.dataSource())) {
      Gate gate = new Gate(queue, false);
      try (Once once = once(db.dataSource(), gate.transport())) {
        once.newRelay().start();
        once.newRelay().start();
        awaitRelaysWaiting(2);
        publish(once, "slow", 1);
        assertThat(gate.entered.await(PROMPT.toSeconds(), TimeUnit.SECONDS)).isTrue();
        publish(once, "order-paid", 8); // eight keys: some in other partitions than the slow one's
        long others = otherPartitions(db);
        assertThat(others).isPositive();
        awaitTrue(() -> sent(db) >= others, PROMPT);
        assertThat(sent(db)).as("sent while the first relay waits").isEqualTo(others);
        gate.release.countDown();
        awaitTrue(() -> sent(db) == 9, PROMPT);
      }
    }
  }

  @Test
  void aCommitDuringABatchThatSentNothingIsNotLost() throws Exception {
    try (TestDatabase db = TestDatabase.embedded();
        TableQueueTransport queue = TableQueueTransport.create(db.dataSource())) {
      Gate gate = new Gate(queue, true); // the slow event is refused: its batch sends nothing
      try (Once once = once(db.dataSource(), gate.transport())) {
        once.newRelay().start();
        awaitRelaysWaiting(1);
        publish(once, "slow", 1);
        assertThat(gate.entered.await(PROMPT.toSeconds(), TimeUnit.SECONDS)).isTrue();
        publish(once, "order-paid", 1);
        gate.release.countDown();
        awaitTrue(() -> sent(db) == 1, PROMPT);
      }
    }
  }

  /**
   * A commit of a backlog wakes one relay; that relay takes its share of the due partitions, leaves
   * the rest and wakes the second, so both publish side by side. Without that signal (the relay's
   * {@code more}) the second sleeps its idle wait (60 s here) while rows wait, and one relay
   * publishes the whole backlog alone: this test then fails. 200 rows in batches of 10.
   */
  @Test
  void aBacklogIsPublishedByBothRelaysSideBySide() throws Exception {
    try (TestDatabase db = TestDatabase.embedded();
        TableQueueTransport queue = TableQueueTransport.create(db.dataSource())) {
      Set<Thread> publishers = ConcurrentHashMap.newKeySet();
      Transport recording =
          new ForwardingTransport(queue) {
            @Override
            public PublishResult publish(List<Event> batch, Duration confirmTimeout) {
              publishers.add(Thread.currentThread());
              return super.publish(batch, confirmTimeout);
            }
          };
      try (Once once = once(db.dataSource(), recording, 10)) {
        once.newRelay().start();
        once.newRelay().start();
        awaitRelaysWaiting(2);
        publish(once, "order-paid", 200);
        awaitTrue(() -> sent(db) == 200, PROMPT);
        assertThat(publishers).as("relay threads that published the backlog").hasSize(2);
      }
    }
  }

  /**
   * A batch that took every due row it saw waits for the next commit instead of claiming again: at
   * a paced rate a relay's batch is one event, and a second claim that finds nothing doubled the
   * relay's statements per event (its CPU and its database's). Counted as the relay's transactions
   * (commits) from the commit until it waits again: 1 (2 before).
   */
  @Test
  void aBatchThatTookEveryDueRowWaitsWithoutClaimingAgain() throws Exception {
    assertThat(relayTransactionsForOneCommit(1, 3))
        .as("relay transactions for one commit of 3 rows")
        .isEqualTo(1);
  }

  /**
   * A commit of a few rows in several partitions, with two relays waiting, is one relay batch: the
   * relay it wakes takes every due partition, as its last claim did not fill a batch. Before, each
   * claim took a share of what it saw and woke the other relay for the rest, which did the same:
   * claims, publishes and marks sent where one does (at a paced rate, a relay batch per partition
   * instead of per wake-up). Counted as the relays' transactions from the commit until both wait
   * again: 1 (6 or 7 before, as the shares fell).
   */
  @Test
  void aCommitOfAFewRowsIsOneBatchOfOneRelay() throws Exception {
    assertThat(relayTransactionsForOneCommit(2, 8))
        .as("relay transactions for one commit of 8 rows")
        .isEqualTo(1);
  }

  /**
   * The transactions {@code relays} started relays commit from one commit of {@code rows} rows
   * until they all wait again; with several relays the rows span several partitions, for them to
   * share.
   */
  private static int relayTransactionsForOneCommit(int relays, int rows) throws Exception {
    try (TestDatabase db = TestDatabase.embedded();
        TableQueueTransport queue = TableQueueTransport.create(db.dataSource())) {
      AtomicInteger commits = new AtomicInteger();
      try (Once once =
          once(
              transactionsOnRelayThreads(db.dataSource(), t -> commits.incrementAndGet()), queue)) {
        for (int i = 0; i < relays; i++) {
          once.newRelay().start();
        }
        awaitRelaysWaiting(relays);
        commits.set(0);
        publish(once, "order-paid", rows);
        if (relays > 1) {
          assertThat(db.count("SELECT count(DISTINCT key_partition) FROM once_outbox"))
              .as("partitions of the " + rows + " rows")
              .isGreaterThan(1);
        }
        awaitTrue(() -> sent(db) == rows, PROMPT);
        awaitRelaysWaiting(relays);
        return commits.get();
      }
    }
  }

  /** Once with a consumer group bound to {@code orders} (not started: the queue keeps its rows). */
  private static Once once(DataSource dataSource, Transport transport) {
    return once(dataSource, transport, 200);
  }

  /** As above, {@code relayBatch} rows per relay batch. */
  private static Once once(DataSource dataSource, Transport transport, int relayBatch) {
    Once once =
        Once.builder()
            .dataSource(dataSource)
            .transport(transport)
            .destinations("orders")
            .relayIdleWait(IDLE)
            .relayBatchSize(relayBatch)
            .relayRetry(
                RetryPolicy.builder()
                    .maxAttempts(10)
                    .backoff(Duration.ofSeconds(30), Duration.ofSeconds(60))
                    .build())
            .build();
    once.consumer("warehouse").subscribe("orders", (tx, e) -> {}).build();
    return once;
  }

  private static void publish(Once once, String type, int events) {
    once.useTransaction(
        tx -> {
          for (int i = 0; i < events; i++) {
            tx.publish(Event.of(EventId.of(type, i), "orders", type + i, "T", "{}"));
          }
        });
  }

  private static long sent(TestDatabase db) {
    return db.count("SELECT count(*) FROM once_outbox WHERE sent_at IS NOT NULL");
  }

  /** Rows not in the slow event's partition. */
  private static long otherPartitions(TestDatabase db) {
    return db.count(
        "SELECT count(*) FROM once_outbox WHERE key_partition <> (SELECT key_partition FROM"
            + " once_outbox WHERE event_id LIKE 'slow%')");
  }

  /** Waits until {@code n} relay threads wait for a wake-up: in Object.wait under Wakeup.await. */
  private static void awaitRelaysWaiting(int n) throws InterruptedException {
    awaitTrue(
        () ->
            Thread.getAllStackTraces().entrySet().stream()
                    .filter(e -> e.getKey().getName().equals("once-relay"))
                    .filter(
                        e ->
                            e.getValue().length > 0
                                && e.getValue()[0].getClassName().equals("java.lang.Object")
                                && e.getValue()[0].getMethodName().startsWith("wait")
                                && Arrays.stream(e.getValue())
                                    .anyMatch(f -> f.getClassName().endsWith("Wakeup")))
                    .count()
                == n,
        PROMPT);
  }

  private static void awaitTrue(BooleanSupplier condition, Duration max)
      throws InterruptedException {
    long deadline = System.nanoTime() + max.toNanos();
    while (!condition.getAsBoolean()) {
      assertThat(System.nanoTime()).as("waited %s", max).isLessThan(deadline);
      Thread.sleep(5);
    }
  }

  /** {@code delegate} whose connections record the relay threads that commit on them. */
  private static DataSource transactionsOnRelayThreads(DataSource delegate, Set<Thread> into) {
    return transactionsOnRelayThreads(delegate, into::add);
  }

  /** {@code delegate} whose connections tell {@code onCommit} of each commit on a relay thread. */
  private static DataSource transactionsOnRelayThreads(
      DataSource delegate, java.util.function.Consumer<Thread> onCommit) {
    return (DataSource)
        Proxy.newProxyInstance(
            DataSource.class.getClassLoader(),
            new Class<?>[] {DataSource.class},
            (p, m, a) -> {
              Object result = invoke(delegate, m, a);
              if (!(result instanceof Connection c)) {
                return result;
              }
              return Proxy.newProxyInstance(
                  Connection.class.getClassLoader(),
                  new Class<?>[] {Connection.class},
                  (pc, mc, ac) -> {
                    if (mc.getName().equals("commit")
                        && Thread.currentThread().getName().equals("once-relay")) {
                      onCommit.accept(Thread.currentThread());
                    }
                    return invoke(c, mc, ac);
                  });
            });
  }

  private static Object invoke(Object target, java.lang.reflect.Method m, Object[] args)
      throws Throwable {
    try {
      return m.invoke(target, args);
    } catch (java.lang.reflect.InvocationTargetException e) {
      throw e.getCause();
    }
  }

  /**
   * The table queue, whose publish of a batch with the {@code slow} event waits until released (and
   * then refuses that event, if {@code refuse}).
   */
  private static final class Gate {
    final CountDownLatch entered = new CountDownLatch(1);
    final CountDownLatch release = new CountDownLatch(1);
    private final Transport queue;
    private final boolean refuse;

    Gate(Transport queue, boolean refuse) {
      this.queue = queue;
      this.refuse = refuse;
    }

    Transport transport() {
      return new Transport() {
        @Override
        public String name() {
          return "gated " + queue.name();
        }

        @Override
        public void declare(String destination, String consumerId) {
          queue.declare(destination, consumerId);
        }

        @Override
        public PublishResult publish(List<Event> batch, Duration confirmTimeout) {
          if (batch.stream().noneMatch(e -> e.id().value().startsWith("slow"))) {
            return queue.publish(batch, confirmTimeout);
          }
          entered.countDown();
          try {
            release.await(PROMPT.toSeconds() * 3, TimeUnit.SECONDS);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
          if (!refuse) {
            return queue.publish(batch, confirmTimeout);
          }
          Map<Integer, String> failures = new ConcurrentHashMap<>();
          for (int i = 0; i < batch.size(); i++) {
            failures.put(i, "refused by the test");
          }
          return new PublishResult(new java.util.BitSet(), failures);
        }

        @Override
        public Receiver receiver(String destination, String consumerId) {
          return queue.receiver(destination, consumerId);
        }

        @Override
        public void close() {}
      };
    }
  }
}
