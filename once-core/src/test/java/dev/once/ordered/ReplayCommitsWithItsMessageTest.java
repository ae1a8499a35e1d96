package dev.once.ordered;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.once.Consumer;
import dev.once.DeadLetterFilter;
import dev.once.StoreException;
import dev.once.spi.ForwardingDataSource;
import dev.once.test.TestDatabase;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * A replay on the table queue writes the head's message, releases its key and resolves the dead
 * letter in one transaction. Committed apart (as a broker's publish must be), the message and the
 * released key were visible while the dead letter still read open; an ordered consumer that ran the
 * head at once then parked its key again behind it in its acknowledgement, and the key's later
 * events waited for ever (seen in CI: 589 of 600 effects, the head run, the key parked, no open
 * dead letter). Here the resolving transaction fails at its commit: nothing of the replay may be
 * left — no message, the key still parked, the dead letter open — and a second replay then runs the
 * key in order.
 */
class ReplayCommitsWithItsMessageTest {

  @Test
  void aReplayWhoseCommitFailsLeavesTheKeyParkedAndNoMessage() {
    try (TestDatabase db = TestDatabase.embedded()) {
      FailingDeadLetterCommits dataSource = new FailingDeadLetterCommits(db.dataSource());
      try (KeyedSteps run = new KeyedSteps(db, dataSource, null, null)) {
        AtomicBoolean poisoned = new AtomicBoolean(true);
        Consumer consumer = parkK0(db, run, poisoned);
        poisoned.set(false);
        dataSource.refuse(Integer.MAX_VALUE, "XX000");
        assertThatThrownBy(
                () -> run.once.deadLetters().replay(DeadLetterFilter.open(), "test", "fixed"))
            .isInstanceOf(StoreException.class);
        dataSource.refuse(0, null);

        assertThat(db.count("SELECT count(*) FROM once_queue WHERE event_id = 'step:k0:2'"))
            .as("the head's message, written by the replay that failed")
            .isZero();
        assertThat(db.count("SELECT count(*) FROM once_parked_key WHERE event_id = 'step:k0:2'"))
            .as("the key, still parked behind its head")
            .isEqualTo(1);
        assertThat(db.count("SELECT count(*) FROM once_dead_letter WHERE status = 'dead'"))
            .isEqualTo(1);
        assertThat(run.steps("k0")).containsExactly(1);

        assertThat(run.once.deadLetters().replay(DeadLetterFilter.open(), "test", "fixed"))
            .hasSize(1);
        run.runUntil(consumer, 8);
        consumer.close();
        assertThat(run.steps("k0")).containsExactly(1, 2, 3, 4);
        assertThat(run.outOfOrder()).isZero();
        assertThat(db.count("SELECT count(*) FROM once_parked_key")).isZero();
      }
    }
  }

  /**
   * A replay that a deadlock rolls back (seen on MariaDB while the ordered consumer ran the keys
   * beside the one replayed: the operator's command failed with SQLState 40001) runs again as a
   * whole and resolves the key; with the retry removed, the replay throws and the key stays parked.
   */
  @Test
  void aReplayRolledBackByADeadlockRunsAgainAndReleasesTheKey() {
    try (TestDatabase db = TestDatabase.embedded()) {
      FailingDeadLetterCommits dataSource = new FailingDeadLetterCommits(db.dataSource());
      try (KeyedSteps run = new KeyedSteps(db, dataSource, null, null)) {
        AtomicBoolean poisoned = new AtomicBoolean(true);
        Consumer consumer = parkK0(db, run, poisoned);
        poisoned.set(false);
        dataSource.refuse(2, "40001");
        assertThat(run.once.deadLetters().replay(DeadLetterFilter.open(), "test", "fixed"))
            .hasSize(1);
        assertThat(dataSource.refused).as("commits refused as deadlocks").hasValue(2);
        assertThat(db.count("SELECT count(*) FROM once_dead_letter_action"))
            .as("one action recorded, not one per try")
            .isEqualTo(1);

        run.runUntil(consumer, 8);
        consumer.close();
        assertThat(run.steps("k0")).containsExactly(1, 2, 3, 4);
        assertThat(run.outOfOrder()).isZero();
        assertThat(db.count("SELECT count(*) FROM once_parked_key")).isZero();
      }
    }
  }

  /**
   * Keys k0 and k1, four steps each, through an ordered consumer of two workers whose handler fails
   * k0's step 2 while {@code poisoned}: returns once k0 is parked behind it (k1 run, k0's step 1).
   */
  private static Consumer parkK0(TestDatabase db, KeyedSteps run, AtomicBoolean poisoned) {
    Consumer consumer =
        run.consumer(KeyedSteps.poisonedAt("step:k0:2", poisoned), KeyedSteps.fast(1))
            .workers(2)
            .ordered()
            .build();
    run.publish(2, 4);
    run.runUntil(consumer, 8 - 3);
    org.awaitility.Awaitility.await("k0 parked")
        .atMost(Duration.ofSeconds(30))
        .until(() -> db.count("SELECT count(*) FROM once_parked_key") == 1);
    return consumer;
  }

  /**
   * The next {@link #refuse} commits of a transaction that wrote to a dead-letter table fail with
   * the given SQLState; every other commit (the queue's own, the consumer's) goes through.
   */
  private static final class FailingDeadLetterCommits extends ForwardingDataSource {
    private final AtomicInteger toRefuse = new AtomicInteger();
    private volatile String state;
    final AtomicInteger refused = new AtomicInteger();

    void refuse(int commits, String sqlState) {
      state = sqlState;
      toRefuse.set(commits);
    }

    FailingDeadLetterCommits(DataSource delegate) {
      super(delegate);
    }

    @Override
    public Connection getConnection() throws SQLException {
      Connection c = super.getConnection();
      AtomicBoolean touched = new AtomicBoolean();
      return (Connection)
          Proxy.newProxyInstance(
              Connection.class.getClassLoader(),
              new Class<?>[] {Connection.class},
              (proxy, method, args) -> {
                if (method.getName().startsWith("prepare")
                    && args != null
                    && args[0] instanceof String sql
                    && sql.contains("once_dead_letter")) {
                  touched.set(true);
                }
                if (method.getName().equals("commit")
                    && touched.get()
                    && toRefuse.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
                  refused.incrementAndGet();
                  throw new SQLException("commit refused by the test", state);
                }
                if (List.of("commit", "rollback").contains(method.getName())) {
                  touched.set(false);
                }
                try {
                  return method.invoke(c, args);
                } catch (InvocationTargetException e) {
                  throw e.getCause();
                }
              });
    }
  }
}
