package dev.once.internal.consumer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.once.Event;
import dev.once.EventId;
import dev.once.jdbc.Dialect;
import dev.once.jdbc.TransactionWaits;
import dev.once.spi.Receiver;
import dev.once.test.TestDatabase;
import dev.once.test.WakeCounting;
import java.sql.Connection;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * A lane commit wakes one idle lane worker, not every one: the workers compete for the same rows,
 * and waking all four on every lane commit made 400 claims for 155 lane batches (RabbitMQ, 4 000
 * events of distinct keys). A worker whose claim came back full wakes the next. Claims are counted
 * on the queue's dialect; the workers' idle wait is a minute, so anything claimed sooner was woken.
 */
class LaneWakeTest {
  private static final Duration IDLE = Duration.ofSeconds(60);
  private static final Duration PROMPT = Duration.ofSeconds(20);

  @Test
  void eachLaneCommitWakesOneOfFourIdleWorkers() throws Exception {
    AtomicInteger claims = new AtomicInteger();
    AtomicInteger delivered = new AtomicInteger();
    int rounds = 10;
    try (TestDatabase db = TestDatabase.embedded()) {
      Dialect dialect = WakeCounting.countingQueueCalls(db.dialect(), "claimInKeyOrder", claims);
      LaneQueue lane = new LaneQueue(context(db, dialect), IDLE);
      lane.declare("orders", "g");
      List<Thread> workers = new ArrayList<>();
      for (int i = 0; i < 4; i++) {
        workers.add(pollForever(lane.receiver("orders", "g"), delivered, "lane-wake-" + i));
      }
      WakeCounting.awaitWaiting(workers, PROMPT);
      assertThat(claims).as("each worker's first claim, empty").hasValue(4);
      for (int round = 1; round <= rounds; round++) {
        write(db, dialect, round, 3);
        lane.wake();
        int expected = 3 * round;
        WakeCounting.awaitTrue(() -> delivered.get() == expected, PROMPT);
        WakeCounting.awaitWaiting(workers, PROMPT);
      }
      workers.forEach(Thread::interrupt);
      for (Thread t : workers) {
        t.join(PROMPT.toMillis());
      }
      assertThat(claims.get())
          .as(
              "claims: 4 first ones, then per lane commit the woken worker's and, back in poll, its"
                  + " empty one (all four woken: 5 a commit, %d in all)",
              4 + 5 * rounds)
          .isLessThanOrEqualTo(4 + 2 * rounds);
    }
  }

  private static ConsumerContext context(TestDatabase db, Dialect dialect) {
    return new ConsumerContext(
        db.dataSource(),
        dialect,
        null,
        TransactionWaits.NONE,
        null,
        null,
        null,
        Clock.systemUTC(),
        null,
        () -> {},
        () -> {},
        Optional.empty(),
        null);
  }

  /** Writes {@code events} rows of distinct keys into the group's lane, as a divert does. */
  private static void write(TestDatabase db, Dialect dialect, int round, int events)
      throws Exception {
    List<Event> batch =
        IntStream.range(0, events)
            .mapToObj(i -> Event.of(EventId.of("o", round + "-" + i), "orders", "k" + i, "T", "{}"))
            .toList();
    try (Connection c = db.dataSource().getConnection()) {
      dialect.queue().enqueue(c, batch, Clock.systemUTC().instant());
    }
  }

  /** Polls batches of 32 until interrupted, acknowledging and counting what it receives. */
  private static Thread pollForever(Receiver receiver, AtomicInteger delivered, String name) {
    Thread t =
        new Thread(
            () -> {
              try {
                while (true) {
                  var got = receiver.poll(32, IDLE);
                  receiver.ack(got);
                  delivered.addAndGet(got.size());
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
}
