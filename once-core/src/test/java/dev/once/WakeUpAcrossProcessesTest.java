package dev.once;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.once.internal.postgres.PostgresListener;
import dev.once.jdbc.Channel;
import dev.once.jdbc.Dialects;
import dev.once.jdbc.SqlFlavour;
import dev.once.tablequeue.TableQueueTransport;
import dev.once.test.TestDatabase;
import java.sql.Connection;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Two instances on one database stand for two processes: what one commits must wake the other's
 * relay through PostgreSQL {@code NOTIFY}, sent after the commit, long before its idle wait (a
 * minute here) would have it look again. (Table-queue receivers also look every 500 ms on their
 * own, so a test of their wake-up could not tell a missing notification from a poll.)
 */
class WakeUpAcrossProcessesTest {
  private static final Duration IDLE = Duration.ofSeconds(60);
  private static final Duration WOKEN_WITHIN = Duration.ofSeconds(5);

  @Test
  void aRelayInAnotherProcessWakesUpForACommittedOutboxRow() throws Exception {
    try (TestDatabase db = TestDatabase.embedded();
        TableQueueTransport transportA = TableQueueTransport.create(db.dataSource());
        TableQueueTransport transportB = TableQueueTransport.create(db.dataSource());
        Once producer = instance(db, transportA);
        Once relaying = instance(db, transportB)) {
      transportB.declare("orders", "c");
      try (Relay relay = relaying.newRelay().start()) {
        // the relay looked, found nothing and waits for a wake-up; its LISTEN is in place
        await()
            .atMost(WOKEN_WITHIN)
            .until(
                () ->
                    inFrame("once-relay", "Wakeup", "await")
                        && inFrame("once-listen", "", "getNotifications"));
        producer.inTransaction(
            tx ->
                tx.publish(
                    Event.of(EventId.of("order-paid", 1), "orders", "1", "OrderPaid", "{}")));

        await()
            .atMost(WOKEN_WITHIN)
            .untilAsserted(
                () ->
                    assertThat(
                            db.count("SELECT count(*) FROM once_outbox WHERE sent_at IS NOT NULL"))
                        .isEqualTo(1));
      }
    }
  }

  /**
   * A process's own notifications do not wake its own waiters a second time (its engines woke them
   * directly when they committed); other senders' do, and so do notifications without a sender (an
   * older version's).
   */
  @Test
  void aListenerSkipsItsOwnSendersNotifications() throws Exception {
    try (TestDatabase db = TestDatabase.embedded()) {
      SqlFlavour flavour = Dialects.forDataSource(db.dataSource()).flavour();
      AtomicInteger woken = new AtomicInteger();
      AutoCloseable subscription =
          flavour.listen(db.dataSource(), Channel.QUEUE, "me", woken::incrementAndGet);
      PostgresListener listener = PostgresListener.runningFor(db.dataSource());
      try (Connection c = db.dataSource().getConnection()) {
        c.setAutoCommit(true);
        await().atMost(WOKEN_WITHIN).until(() -> listener.listens() == 1); // LISTEN is in place
        flavour.notify(c, Channel.QUEUE, "me");
        // counted when read: the listener got its own notification and woke nobody for it
        await().atMost(WOKEN_WITHIN).until(() -> listener.notificationsRead() >= 1);
        assertThat(woken.get()).as("after its own notification").isZero();

        flavour.notify(c, Channel.QUEUE, "someone-else");
        await().atMost(WOKEN_WITHIN).untilAsserted(() -> assertThat(woken.get()).isEqualTo(1));
        flavour.notify(c, Channel.QUEUE, null);
        await().atMost(WOKEN_WITHIN).untilAsserted(() -> assertThat(woken.get()).isEqualTo(2));
      } finally {
        subscription.close();
      }
    }
  }

  /**
   * Whether a live thread named {@code thread} is in method {@code method} of a class whose name
   * ends with {@code classSuffix}.
   */
  private static boolean inFrame(String thread, String classSuffix, String method) {
    return Thread.getAllStackTraces().entrySet().stream()
        .filter(e -> e.getKey().getName().equals(thread))
        .anyMatch(
            e ->
                Arrays.stream(e.getValue())
                    .anyMatch(
                        f ->
                            f.getClassName().endsWith(classSuffix)
                                && f.getMethodName().equals(method)));
  }

  private static Once instance(TestDatabase db, TableQueueTransport transport) {
    return Once.builder()
        .dataSource(db.dataSource())
        .transport(transport)
        .destinations("orders")
        .relayIdleWait(IDLE)
        .build();
  }
}
