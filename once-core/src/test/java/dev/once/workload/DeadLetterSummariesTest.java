package dev.once.workload;

import static org.assertj.core.api.Assertions.assertThat;

import dev.once.DeadLetter;
import dev.once.DeadLetterFilter;
import dev.once.internal.DeadLetterStore;
import dev.once.test.TestDatabase;
import java.io.PrintWriter;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.logging.Logger;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * {@code DeadLetters.summaries}: keyset pages, oldest first, each dead letter on exactly one page,
 * and no statement that names the payload or headers column (a statement spy on the data source).
 */
class DeadLetterSummariesTest {

  @Test
  void pagesWithoutPayloadOnPostgresql() {
    try (TestDatabase db = TestDatabase.embedded()) {
      pagesWithoutPayload(db);
    }
  }

  @Test
  void pagesWithoutPayloadOnMariaDb() {
    try (TestDatabase db = TestDatabase.mariadb()) {
      pagesWithoutPayload(db);
    }
  }

  private static void pagesWithoutPayload(TestDatabase db) {
    for (int i = 1; i <= 23; i++) {
      db.execute(
          "INSERT INTO once_dead_letter (consumer_id, event_id, destination, event_type, payload"
              + (db.isMariaDb() ? ", headers" : "")
              + ", attempts, first_failed_at, last_failed_at, error_class, error_fingerprint,"
              + " error_message) VALUES ('"
              + (i % 2 == 0 ? "warehouse" : "notifier")
              + "', 'e-"
              + i
              + "', 'orders', 'T', "
              + (db.isMariaDb() ? "'{\"a\":1}', 'h=v'" : "'\\x7b7d'")
              + ", 1, "
              + (db.isMariaDb() ? "UTC_TIMESTAMP(6), UTC_TIMESTAMP(6)" : "now(), now()")
              + ", 'E', 'f', 'm')");
    }
    List<String> statements = new ArrayList<>();
    DeadLetterStore store =
        new DeadLetterStore(
            spy(db.dataSource(), statements), null, db.dialect(), Clock.systemUTC());
    DeadLetterFilter tenAtATime =
        new DeadLetterFilter(null, null, null, null, null, null, null, 10);

    List<String> seen = new ArrayList<>();
    List<Integer> sizes = new ArrayList<>();
    long after = 0;
    while (true) {
      List<DeadLetter> page = store.summaries(tenAtATime, after);
      if (page.isEmpty()) {
        break;
      }
      sizes.add(page.size());
      for (DeadLetter d : page) {
        assertThat(d.id()).isGreaterThan(after);
        after = d.id();
        seen.add(d.event().id().value());
        assertThat(d.event().payload()).isEmpty();
        assertThat(d.event().headers()).isEmpty();
      }
    }
    assertThat(sizes).containsExactly(10, 10, 3);
    List<String> all = new ArrayList<>();
    for (int i = 1; i <= 23; i++) {
      all.add("e-" + i);
    }
    assertThat(seen).isEqualTo(all);
    assertThat(store.summaries(tenAtATime.consumer("warehouse"), 0)).hasSize(10);
    assertThat(statements).isNotEmpty();
    assertThat(statements)
        .allSatisfy(sql -> assertThat(sql.toLowerCase()).doesNotContain("payload", "headers"));

    statements.clear();
    assertThat(store.list(tenAtATime)).hasSize(10); // the spy sees a payload when one is read
    assertThat(statements).anySatisfy(sql -> assertThat(sql).contains("payload"));
  }

  /** {@code dataSource}, recording the SQL of every statement prepared on its connections. */
  private static DataSource spy(DataSource dataSource, List<String> statements) {
    return new DataSource() {
      @Override
      public Connection getConnection() throws SQLException {
        Connection real = dataSource.getConnection();
        return (Connection)
            Proxy.newProxyInstance(
                Connection.class.getClassLoader(),
                new Class<?>[] {Connection.class},
                (proxy, method, args) -> {
                  if (method.getName().startsWith("prepare") && args != null) {
                    statements.add((String) args[0]);
                  }
                  try {
                    return method.invoke(real, args);
                  } catch (InvocationTargetException e) {
                    throw e.getCause();
                  }
                });
      }

      @Override
      public Connection getConnection(String user, String password) {
        throw new UnsupportedOperationException();
      }

      @Override
      public PrintWriter getLogWriter() {
        return null;
      }

      @Override
      public void setLogWriter(PrintWriter out) {}

      @Override
      public void setLoginTimeout(int seconds) {}

      @Override
      public int getLoginTimeout() {
        return 0;
      }

      @Override
      public Logger getParentLogger() throws SQLFeatureNotSupportedException {
        throw new SQLFeatureNotSupportedException();
      }

      @Override
      public <T> T unwrap(Class<T> iface) throws SQLException {
        return dataSource.unwrap(iface);
      }

      @Override
      public boolean isWrapperFor(Class<?> iface) throws SQLException {
        return dataSource.isWrapperFor(iface);
      }
    };
  }
}
