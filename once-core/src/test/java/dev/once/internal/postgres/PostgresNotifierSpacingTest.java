package dev.once.internal.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * The notifier sends at most one notification per {@link PostgresNotifier#SPACING} however many
 * commits signal, and the first signal after a quiet spell at once. Its twin without spacing sends
 * one per signal it sees: the bound is what the spacing buys, not what a slow machine gives.
 */
class PostgresNotifierSpacingTest {
  private static final Duration BURST = Duration.ofMillis(500);

  /** Longer than the default, so that a loaded machine's scheduling cannot make the bound. */
  private static final Duration SPACING = Duration.ofMillis(50);

  private static final int BOUND = (int) (BURST.toMillis() / SPACING.toMillis()) + 2;

  @Test
  void aBurstOfSignalsSendsAtMostOneNotificationPerSpacing() throws Exception {
    assertThat(burst(SPACING)).isBetween(1, BOUND);
  }

  @Test
  void withoutSpacingTheSameBurstSendsMore() throws Exception {
    assertThat(burst(Duration.ZERO)).isGreaterThan(BOUND);
  }

  /**
   * Signals while one is pending do not wake the sending thread: it wakes about twice per
   * notification (for the first signal, at the spacing's end), not once per commit (when every
   * signal woke it, a burst like this one woke it thousands of times).
   */
  @Test
  void signalsWhileOneIsPendingDoNotWakeTheSender() throws Exception {
    AtomicInteger sent = new AtomicInteger();
    PostgresNotifier n =
        new PostgresNotifier(connections(), c -> sent.incrementAndGet(), "test", SPACING);
    try {
      signalFor(n, BURST);
      assertThat(n.wakeups()).isLessThanOrEqualTo(2L * sent.get() + 2);
    } finally {
      n.close();
    }
  }

  /**
   * On a clock the test sets, with a spacing of an hour: a signal two hours after the last
   * notification is sent at once (a notifier that waited out the spacing regardless would hold it
   * for an hour and {@code awaitSent} would fail).
   */
  @Test
  void theFirstSignalAfterAQuietSpellIsSentAtOnce() throws Exception {
    AtomicInteger sent = new AtomicInteger();
    AtomicLong now = new AtomicLong();
    Duration spacing = Duration.ofHours(1);
    PostgresNotifier n =
        new PostgresNotifier(connections(), c -> sent.incrementAndGet(), "test", spacing, now::get);
    try {
      n.signal();
      awaitSent(sent, 1);
      now.addAndGet(spacing.multipliedBy(2).toNanos()); // a quiet spell of two spacings
      n.signal();
      awaitSent(sent, 2);
    } finally {
      n.close();
    }
  }

  /**
   * A commit after which no transaction carried a notification (the last of a burst) is announced
   * by the notifier's thread.
   */
  @Test
  void aCommitThatNoCarriedNotificationFollowsIsSentByTheThread() throws Exception {
    AtomicInteger sent = new AtomicInteger();
    PostgresNotifier n =
        new PostgresNotifier(connections(), c -> sent.incrementAndGet(), "test", SPACING);
    try {
      long ticket = n.claim();
      assertThat(ticket).as("the first transaction after a quiet spell carries one").isZero();
      n.carried(ticket);
      n.signal(); // a commit within the spacing, which carried none
      awaitSent(sent, 1);
      assertThat(n.owing()).isZero();
    } finally {
      n.close();
    }
  }

  /**
   * A transaction that claims a notification after commits that carried none announces them: the
   * thread has nothing left to send. Without the claim it would send one (the test above).
   */
  @Test
  void aCarriedNotificationCoversTheCommitsBeforeItsClaim() throws Exception {
    // on a clock the test sets, with a spacing of an hour: the thread, whose wait after a carried
    // notification is two spacings, cannot send before the claim below
    Duration spacing = Duration.ofHours(1);
    AtomicLong now = new AtomicLong();
    AtomicInteger sent = new AtomicInteger();
    PostgresNotifier n =
        new PostgresNotifier(connections(), c -> sent.incrementAndGet(), "test", spacing, now::get);
    try {
      n.carried(n.claim());
      n.signal();
      n.signal();
      assertThat(n.claim()).as("within the spacing, no transaction carries one").isNegative();
      assertThat(n.owing()).isEqualTo(2);
      now.addAndGet(spacing.plusMinutes(1).toNanos()); // the next transaction, past the spacing
      long ticket = n.claim();
      assertThat(ticket).as("it covers the two commits before it").isEqualTo(2);
      n.carried(ticket);
      assertThat(n.owing()).isZero();
      assertThat(n.sentByThread()).isZero();
    } finally {
      n.close();
    }
  }

  /** Signals as fast as it can for {@link #BURST}; returns the notifications sent. */
  private static int burst(Duration spacing) throws Exception {
    AtomicInteger sent = new AtomicInteger();
    PostgresNotifier n =
        new PostgresNotifier(connections(), c -> sent.incrementAndGet(), "test", spacing);
    try {
      signalFor(n, BURST);
      // the last signal's notification may follow: counted once nothing waits to be taken and
      // every signal taken was sent
      await()
          .atMost(Duration.ofSeconds(10))
          .pollInterval(Duration.ofMillis(1))
          .until(() -> !n.pending() && n.taken() == sent.get());
      return sent.get();
    } finally {
      n.close();
    }
  }

  private static void signalFor(PostgresNotifier n, Duration burst) {
    long end = System.nanoTime() + burst.toNanos();
    while (System.nanoTime() < end) {
      n.signal();
      Thread.yield();
    }
  }

  private static void awaitSent(AtomicInteger sent, int n) {
    await()
        .atMost(Duration.ofSeconds(5))
        .pollInterval(Duration.ofMillis(1))
        .untilAsserted(() -> assertThat(sent.get()).isGreaterThanOrEqualTo(n));
  }

  /** Connections that do nothing: the notifier only borrows one and hands it to its send. */
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
