package dev.once.internal.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.once.spi.ForwardingDataSource;
import dev.once.test.TestDatabase;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.time.Duration;
import java.util.List;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * The process's {@code LISTEN} holds a session of its own, opened with the pool's settings, and
 * none of the pool's connections (issue 42 item 5: Once needs no more of the user's pool than a
 * hand-written pipeline with the same threads); where the settings can't be read, or a session of
 * its own is refused while the pool works, it holds one of the pool's, as before.
 */
class ListenOutsideThePoolTest {
  private static final List<String> CHANNELS = List.of("once_own");

  @Test
  void theListenHoldsNoneOfThePoolsConnections() throws Exception {
    try (TestDatabase db = TestDatabase.embedded();
        HikariDataSource pool = db.newPool(3)) {
      AutoCloseable subscription = subscribe(pool);
      PostgresListener listener = PostgresListener.runningFor(pool);
      await().atMost(Duration.ofSeconds(30)).until(() -> listener.listens() == 1);

      assertThat(pool.getHikariPoolMXBean().getActiveConnections())
          .as("the pool's connections borrowed while the LISTEN runs")
          .isZero();
      assertThat(PostgresListener.holdsAPoolConnection(pool)).isFalse();
      try (Connection c = pool.getConnection()) {
        assertThat(PostgresListener.anybody(c)).as("a listener of this schema").isTrue();
      }
      subscription.close();
      try (Connection c = pool.getConnection()) {
        assertThat(PostgresListener.anybody(c)).as("a listener after the end").isFalse();
      }
    }
  }

  /**
   * The session of its own listens for the pool's schema although its URL names none: the pool's
   * search path is copied (HikariCP's {@code schema} setting sets it on the pool's connections
   * only).
   */
  @Test
  void theSessionOfItsOwnTakesThePoolsSchema() throws Exception {
    try (TestDatabase db = TestDatabase.embedded()) {
      HikariConfig cfg = new HikariConfig();
      cfg.setJdbcUrl(TestDatabase.embeddedUrl());
      cfg.setSchema(db.schema());
      cfg.setMaximumPoolSize(2);
      try (HikariDataSource pool = new HikariDataSource(cfg);
          AutoCloseable subscription = subscribe(pool)) {
        PostgresListener listener = PostgresListener.runningFor(pool);
        await().atMost(Duration.ofSeconds(30)).until(() -> listener.listens() == 1);
        try (Connection c = db.dataSource().getConnection()) {
          assertThat(PostgresListener.anybody(c)).as("a listener of " + db.schema()).isTrue();
        }
      }
    }
  }

  @Test
  void aPoolWhoseSettingsCannotBeReadLendsTheListenOneOfItsConnections() throws Exception {
    try (TestDatabase db = TestDatabase.embedded();
        HikariDataSource pool = db.newPool(3)) {
      DataSource opaque = opaque(pool);
      assertThat(PostgresListener.holdsAPoolConnection(opaque)).isTrue();
      try (AutoCloseable subscription = subscribe(opaque)) {
        PostgresListener listener = PostgresListener.runningFor(opaque);
        await().atMost(Duration.ofSeconds(30)).until(() -> listener.listens() == 1);
        assertThat(pool.getHikariPoolMXBean().getActiveConnections())
            .as("the pool's connections borrowed while the LISTEN runs")
            .isEqualTo(1);
      }
    }
  }

  /**
   * A pool whose settings name a server that refuses a session of its own (here a closed port),
   * while its own connections work: the listener takes one of the pool's instead of waiting for
   * ever for a session that never opens.
   */
  @Test
  void aRefusedSessionOfItsOwnFallsBackToThePool() throws Exception {
    try (TestDatabase db = TestDatabase.embedded();
        HikariDataSource pool = db.newPool(3)) {
      DataSource misleading = new MisleadingUrl(pool);
      assertThat(PostgresListener.holdsAPoolConnection(misleading)).isFalse();
      try (AutoCloseable subscription = subscribe(misleading)) {
        PostgresListener listener = PostgresListener.runningFor(misleading);
        await().atMost(Duration.ofSeconds(30)).until(() -> listener.listens() == 1);
        assertThat(pool.getHikariPoolMXBean().getActiveConnections())
            .as("the pool's connections borrowed while the LISTEN runs")
            .isEqualTo(1);
      }
    }
  }

  /** A closed pool ends its process's {@code LISTEN}, as it ended one of its own connections. */
  @Test
  void aClosedPoolEndsTheSessionOfItsOwn() throws Exception {
    try (TestDatabase db = TestDatabase.embedded()) {
      HikariDataSource pool = db.newPool(2);
      try (AutoCloseable subscription = subscribe(pool)) {
        PostgresListener listener = PostgresListener.runningFor(pool);
        await().atMost(Duration.ofSeconds(30)).until(() -> listener.listens() == 1);

        pool.close();

        await()
            .atMost(Duration.ofSeconds(30))
            .until(
                () -> {
                  try (Connection c = db.dataSource().getConnection()) {
                    return !PostgresListener.anybody(c);
                  }
                });
      }
    }
  }

  private static AutoCloseable subscribe(DataSource ds) {
    return PostgresListener.subscribe(ds, ds, CHANNELS, "once_own", null, () -> {});
  }

  /** Lends the pool's connections and nothing else: no getters, no unwrap. */
  private static DataSource opaque(DataSource pool) {
    return (DataSource)
        Proxy.newProxyInstance(
            ListenOutsideThePoolTest.class.getClassLoader(),
            new Class<?>[] {DataSource.class},
            (p, m, args) ->
                switch (m.getName()) {
                  case "getConnection" -> pool.getConnection();
                  case "isWrapperFor" -> false;
                  case "hashCode" -> System.identityHashCode(p);
                  case "equals" -> p == args[0];
                  default -> throw new UnsupportedOperationException(m.getName());
                });
  }

  /** The pool's connections, with settings that name a port nobody listens on. */
  public static final class MisleadingUrl extends ForwardingDataSource {
    MisleadingUrl(DataSource pool) {
      super(pool);
    }

    public String getJdbcUrl() {
      return "jdbc:postgresql://127.0.0.1:1/postgres?connectTimeout=2";
    }

    @Override
    public boolean isWrapperFor(Class<?> iface) {
      return false;
    }
  }
}
