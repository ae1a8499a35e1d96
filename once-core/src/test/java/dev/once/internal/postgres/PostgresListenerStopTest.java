package dev.once.internal.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariDataSource;
import dev.once.test.TestDatabase;
import java.sql.Connection;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The end of a listener's last subscription returns only after the listener has ended its {@code
 * LISTEN}s and its lock and given its connection back: a pool closed right after sees no statement
 * running on a connection it closes (before, the demo's pool reported "lost a connection" at every
 * shutdown: the listener's clean-up ran on a connection the pool had just closed).
 */
class PostgresListenerStopTest {
  @Test
  void theLastSubscriptionsEndWaitsForTheListenersCleanUp() throws Exception {
    try (TestDatabase db = TestDatabase.embedded();
        HikariDataSource pool = db.newPool(3)) {
      AutoCloseable subscription =
          PostgresListener.subscribe(pool, pool, List.of("once_stop"), "once_stop", null, () -> {});
      PostgresListener listener = PostgresListener.runningFor(pool);
      await().atMost(Duration.ofSeconds(30)).until(() -> listener.listens() == 1);
      try (Connection c = pool.getConnection()) {
        assertThat(PostgresListener.anybody(c)).as("listening before the end").isTrue();
      }

      subscription.close();

      try (Connection c = pool.getConnection()) {
        assertThat(PostgresListener.anybody(c))
            .as("anybody listening right after the last subscription's end")
            .isFalse();
      }
      assertThat(pool.getHikariPoolMXBean().getActiveConnections())
          .as("connections still borrowed (the listener's)")
          .isZero();
    }
  }
}
