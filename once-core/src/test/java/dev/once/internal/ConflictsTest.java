package dev.once.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.once.jdbc.Dialects;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The engine's bookkeeping runs again after a conflict, and only after a conflict. */
class ConflictsTest {
  private final AtomicInteger runs = new AtomicInteger();

  @Test
  void aDeadlockOnMariaDbIsRunAgainUntilTheUnitSucceeds() throws SQLException {
    String result =
        Conflicts.retry(
            Dialects.mariadb(),
            () -> {
              if (runs.incrementAndGet() < 3) {
                throw new SQLException("Deadlock found when trying to get lock", "40001", 1213);
              }
              return "done";
            });

    assertThat(result).isEqualTo("done");
    assertThat(runs).hasValue(3);
  }

  @Test
  void aDeadlockOnPostgresqlIsRunAgainToo() throws SQLException {
    Conflicts.retry(
        Dialects.postgresql(),
        () -> {
          if (runs.incrementAndGet() < 2) {
            throw new SQLException("deadlock detected", "40P01");
          }
          return null;
        });

    assertThat(runs).hasValue(2);
  }

  @Test
  void aConflictThatNeverEndsIsThrownAfterTheBound() {
    assertThatThrownBy(
            () ->
                Conflicts.retry(
                    Dialects.postgresql(),
                    () -> {
                      runs.incrementAndGet();
                      throw new SQLException("could not serialize access", "40001");
                    }))
        .isInstanceOf(SQLException.class)
        .hasMessageContaining("serialize");
    assertThat(runs).hasValue(Conflicts.RETRIES + 1);
  }

  @Test
  void aLostConnectionOrAnOrdinaryErrorIsNotRunAgain() {
    assertThatThrownBy(
            () ->
                Conflicts.retry(
                    Dialects.postgresql(),
                    () -> {
                      runs.incrementAndGet();
                      throw new SQLTransientConnectionException("connection reset", "08006");
                    }))
        .isInstanceOf(SQLException.class);
    assertThat(runs).hasValue(1);

    assertThatThrownBy(
            () ->
                Conflicts.retry(
                    Dialects.mariadb(),
                    () -> {
                      runs.incrementAndGet();
                      throw new SQLException("Duplicate entry", "23000", 1062);
                    }))
        .isInstanceOf(SQLException.class);
    assertThat(runs).hasValue(2);
  }
}
