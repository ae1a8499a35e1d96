package dev.once.tablequeue;

import static org.assertj.core.api.Assertions.assertThat;

import dev.once.Event;
import dev.once.EventId;
import dev.once.spi.Delivery;
import dev.once.spi.Receiver;
import dev.once.test.TestDatabase;
import dev.once.test.WakeCounting;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * A publish wakes one waiting receiver of a consumer group, not every one: the receivers of a group
 * compete for the same rows, and the others' claims would find nothing (on the hand-written
 * yardstick's shape, 4 workers made 2.3 empty claim transactions per relay batch). A receiver whose
 * claim came back full wakes the next. Claims are counted on the queue's dialect; the receivers'
 * idle wait is 60 s, so anything claimed sooner was woken.
 */
class ReceiverWakeTest {
  private static final Duration IDLE = Duration.ofSeconds(60);
  private static final Duration PROMPT = Duration.ofSeconds(20);

  @Test
  void eachPublishWakesOneOfFourWaitingReceivers() throws Exception {
    AtomicInteger claims = new AtomicInteger();
    AtomicInteger delivered = new AtomicInteger();
    int rounds = 10;
    try (TestDatabase db = TestDatabase.embedded();
        TableQueueTransport queue = queue(db, claims)) {
      queue.declare("orders", "g");
      List<Thread> workers = new ArrayList<>();
      for (int i = 0; i < 4; i++) {
        Receiver receiver = queue.receiver("orders", "g");
        workers.add(pollForever(receiver, 32, delivered, "wake-test-" + i));
      }
      awaitWaiting(workers);
      assertThat(claims).as("each receiver's first claim, empty").hasValue(4);
      for (int round = 1; round <= rounds; round++) {
        publish(queue, round, 3);
        int expected = 3 * round;
        awaitTrue(() -> delivered.get() == expected);
        awaitWaiting(workers);
      }
      workers.forEach(Thread::interrupt);
      for (Thread t : workers) {
        t.join(PROMPT.toMillis());
      }
      assertThat(claims.get())
          .as(
              "claims: 4 first ones, then per publish the woken receiver's and, back in poll, its"
                  + " empty one (all four woken: 5 a publish, %d in all)",
              4 + 5 * rounds)
          .isLessThanOrEqualTo(4 + 2 * rounds);
      assertThat(delivered).hasValue(3 * rounds);
    }
  }

  /**
   * A receiver woken by a commit lingers before it claims; the commits during its pause wake no
   * other receiver, since its claim finds their rows (each woke one more, whose claim came back
   * empty: 4 claims for 4 rows, most of them empty), and after that batch it waits for the next
   * signal instead of claiming again at once (its claim took every row it could see).
   */
  @Test
  void commitsDuringAWokenReceiversLingerWakeNoOther() throws Exception {
    AtomicInteger claims = new AtomicInteger();
    AtomicInteger delivered = new AtomicInteger();
    try (TestDatabase db = TestDatabase.embedded();
        TableQueueTransport queue = queue(db, claims)) {
      queue.declare("orders", "g");
      List<Thread> workers = new ArrayList<>();
      for (int i = 0; i < 4; i++) {
        Receiver receiver = queue.receiver("orders", "g");
        // a linger that outlasts the four commits on a loaded machine: a commit after it ends
        // rightly wakes another receiver, and the count would say so
        workers.add(pollForever(receiver, 32, Duration.ofSeconds(3), delivered, "linger-" + i));
      }
      awaitWaiting(workers);
      assertThat(claims).as("each receiver's first claim, empty").hasValue(4);
      for (int i = 1; i <= 4; i++) {
        publish(queue, i, 1); // one commit, one signal each
      }
      awaitTrue(() -> delivered.get() == 4);
      awaitWaiting(workers);
      workers.forEach(Thread::interrupt);
      for (Thread t : workers) {
        t.join(PROMPT.toMillis());
      }
      assertThat(claims.get())
          .as(
              "claims: 4 first ones and the woken receiver's (all four woken: 4 claims after their"
                  + " pauses and, back in poll, an empty one of each that got rows: at least 9)")
          .isEqualTo(5);
    }
  }

  /**
   * A woken receiver stopped during its linger gives its look up: the signals it held back would
   * otherwise wake nobody, and the row would wait for the idle wait (60 s here).
   */
  @Test
  void aWokenReceiverInterruptedInItsLingerWakesAnother() throws Exception {
    AtomicInteger claims = new AtomicInteger();
    AtomicInteger delivered = new AtomicInteger();
    try (TestDatabase db = TestDatabase.embedded();
        TableQueueTransport queue = queue(db, claims)) {
      queue.declare("orders", "g");
      Duration linger = Duration.ofMillis(1500);
      List<Thread> workers = new ArrayList<>();
      for (int i = 0; i < 2; i++) {
        Receiver receiver = queue.receiver("orders", "g");
        workers.add(pollForever(receiver, 32, linger, delivered, "stopped-" + i));
      }
      awaitWaiting(workers);
      publish(queue, 1, 1);
      awaitTrue(() -> waitingOnWakeup(workers.get(0)) != waitingOnWakeup(workers.get(1)));
      Thread woken = waitingOnWakeup(workers.get(0)) ? workers.get(1) : workers.get(0);
      woken.interrupt();
      woken.join(PROMPT.toMillis());
      awaitTrue(() -> delivered.get() == 1);
      assertThat(claims).as("2 first claims, then the other receiver's").hasValue(3);
      workers.forEach(Thread::interrupt);
    }
  }

  private static boolean waitingOnWakeup(Thread t) {
    return java.util.Arrays.stream(t.getStackTrace())
        .anyMatch(
            f -> f.getClassName().endsWith("Wakeup") && f.getMethodName().startsWith("await"));
  }

  @Test
  void aReceiverWhoseClaimCameBackFullWakesTheNext() throws Exception {
    AtomicInteger claims = new AtomicInteger();
    try (TestDatabase db = TestDatabase.embedded();
        TableQueueTransport queue = queue(db, claims)) {
      queue.declare("orders", "g");
      AtomicInteger delivered = new AtomicInteger();
      Thread first = pollOnce(queue.receiver("orders", "g"), delivered, "wake-test-a");
      Thread second = pollOnce(queue.receiver("orders", "g"), delivered, "wake-test-b");
      awaitWaiting(List.of(first, second));
      publish(queue, 1, 8); // two full claims of 4
      awaitTrue(() -> delivered.get() == 8);
      first.join(PROMPT.toMillis());
      second.join(PROMPT.toMillis());
      assertThat(claims).as("two first claims, empty; then two full ones").hasValue(4);
    }
  }

  private static TableQueueTransport queue(TestDatabase db, AtomicInteger claims) {
    return TableQueueTransport.builder(db.dataSource())
        .dialect(WakeCounting.countingQueueCalls(db.dialect(), "claimAndCommit", claims))
        .idleWait(IDLE)
        .build();
  }

  /** Polls batches of {@code max} until interrupted, counting what it receives. */
  private static Thread pollForever(
      Receiver receiver, int max, AtomicInteger delivered, String name) {
    return pollForever(receiver, max, Duration.ZERO, delivered, name);
  }

  /** {@link #pollForever}, lingering {@code linger} after a wait. */
  private static Thread pollForever(
      Receiver receiver, int max, Duration linger, AtomicInteger delivered, String name) {
    Thread t =
        new Thread(
            () -> {
              try {
                while (true) {
                  delivered.addAndGet(receiver.poll(max, IDLE, linger).size());
                }
              } catch (InterruptedException e) {
                // done
              }
            },
            name);
    t.setDaemon(true);
    t.start();
    return t;
  }

  /** One poll of at most 4 deliveries. */
  private static Thread pollOnce(Receiver receiver, AtomicInteger delivered, String name) {
    Thread t =
        new Thread(
            () -> {
              try {
                List<Delivery> got = receiver.poll(4, IDLE, Duration.ZERO);
                delivered.addAndGet(got.size());
              } catch (InterruptedException e) {
                // done
              }
            },
            name);
    t.setDaemon(true);
    t.start();
    return t;
  }

  private static void publish(TableQueueTransport queue, int round, int events) {
    List<Event> batch =
        IntStream.range(0, events)
            .mapToObj(i -> Event.of(EventId.of("o", round + "-" + i), "orders", "k" + i, "T", "{}"))
            .toList();
    queue.publish(batch, Duration.ofSeconds(5));
  }

  private static void awaitWaiting(List<Thread> threads) throws InterruptedException {
    WakeCounting.awaitWaiting(threads, PROMPT);
  }

  private static void awaitTrue(BooleanSupplier condition) throws InterruptedException {
    WakeCounting.awaitTrue(condition, PROMPT);
  }
}
