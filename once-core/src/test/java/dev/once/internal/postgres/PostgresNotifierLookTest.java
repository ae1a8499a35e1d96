package dev.once.internal.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * A notifier told how to see listeners sends nothing while its last look found none, looks again
 * only when that look is {@link PostgresNotifier#LOOK_AGAIN} old (on a clock the test moves), and
 * is woken by no commit meanwhile; the twin where a listener appears is told at the next look.
 */
class PostgresNotifierLookTest {
  private static final int COMMITS = 1_000;

  @Test
  void whileNobodyListensCommitsSendNothingAndWakeNobody() throws Exception {
    AtomicInteger sent = new AtomicInteger();
    AtomicLong now = new AtomicLong();
    PostgresNotifier n = notifier(sent, new AtomicBoolean(false), now);
    long started = System.nanoTime();
    try {
      n.carried(n.claim()); // before the first look: taken to listen, as before looks
      await().atMost(Duration.ofSeconds(10)).until(() -> n.looks() == 1);
      for (int i = 0; i < COMMITS; i++) {
        assertThat(n.claim()).as("a claim while nobody listens").isNegative();
        n.signal();
      }
      now.addAndGet(PostgresNotifier.LOOK_AGAIN.toNanos()); // the look is a second old
      assertThat(n.claim()).isNegative();
      await().atMost(Duration.ofSeconds(10)).until(() -> n.looks() == 2 && n.owing() == 0);
      long seconds = Duration.ofNanos(System.nanoTime() - started).toSeconds();
      assertThat(sent.get()).as("notifications sent for %d commits", COMMITS).isZero();
      assertThat(n.wakeups())
          .as("wake-ups of the thread: its own timed waits, not one per commit")
          .isLessThanOrEqualTo(4 + seconds);
    } finally {
      n.close();
    }
  }

  @Test
  void aListenerThatAppearsIsToldAtTheNextLook() throws Exception {
    AtomicInteger sent = new AtomicInteger();
    AtomicBoolean listening = new AtomicBoolean(false);
    AtomicLong now = new AtomicLong();
    PostgresNotifier n = notifier(sent, listening, now);
    try {
      n.carried(n.claim());
      await().atMost(Duration.ofSeconds(10)).until(() -> n.looks() == 1);
      n.signal();
      listening.set(true);
      now.addAndGet(PostgresNotifier.LOOK_AGAIN.toNanos());
      n.signal(); // the look is old: this commit wakes the thread to look again
      await()
          .atMost(Duration.ofSeconds(10))
          .untilAsserted(() -> assertThat(sent.get()).isEqualTo(1));
      now.addAndGet(PostgresNotifier.SPACING.multipliedBy(3).toNanos());
      assertThat(n.claim()).as("a transaction carries one again").isNotNegative();
    } finally {
      n.close();
    }
  }

  private static PostgresNotifier notifier(
      AtomicInteger sent, AtomicBoolean listening, AtomicLong now) {
    return new PostgresNotifier(
        connections(),
        c -> sent.incrementAndGet(),
        c -> listening.get(),
        "test",
        PostgresNotifier.SPACING,
        now::get);
  }

  /** Connections that do nothing: the notifier only borrows one and hands it on. */
  private static DataSource connections() {
    Connection c =
        (Connection)
            Proxy.newProxyInstance(
                Connection.class.getClassLoader(),
                new Class<?>[] {Connection.class},
                (p, m, args) -> m.getName().equals("getAutoCommit") ? Boolean.TRUE : null);
    return (DataSource)
        Proxy.newProxyInstance(
            DataSource.class.getClassLoader(),
            new Class<?>[] {DataSource.class},
            (p, m, args) -> m.getName().equals("getConnection") ? c : null);
  }
}
