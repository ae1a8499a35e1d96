package dev.once.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.once.app.common.Database;
import dev.once.test.LogLines;
import dev.once.testkit.TcpProxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The database drops every connection of the CLI's pool (a restart, an idle-connection killer): one
 * WARN and one INFO for the pool ({@link PoolOutages} in logback.xml), not HikariCP's warning with
 * a stack trace per connection (4 warnings and ~100 lines here without it).
 */
class PoolOutagesTest {
  private static final int POOL = 4;

  @Test
  void connectionsTheDatabaseDroppedAreOneWarnAndOneInfoForThePool() throws Exception {
    LocalServer.url();
    try (TcpProxy proxy = TcpProxy.to("127.0.0.1", 5432);
        Database db =
            Database.open(
                "jdbc:postgresql://127.0.0.1:" + proxy.port() + "/test?user=postgres", POOL);
        LogLines log = LogLines.capture()) {
      List<Connection> held = new ArrayList<>();
      for (int i = 0; i < POOL; i++) {
        held.add(db.dataSource().getConnection());
      }
      for (Connection c : held) {
        query(c);
      }

      assertThat(proxy.cut()).as("connections reset").isGreaterThanOrEqualTo(POOL);
      for (Connection c : held) { // all four are found broken before the pool replaces one
        assertThatThrownBy(() -> query(c)).isInstanceOf(SQLException.class);
      }
      for (Connection c : held) {
        c.close(); // evicted: the pool opens a new one through the proxy
      }
      await()
          .atMost(Duration.ofSeconds(20))
          .untilAsserted(() -> assertThat(log.matching("works again")).hasSize(1));
      try (Connection c = db.dataSource().getConnection()) {
        query(c);
      }

      List<String> lines = log.matching("");
      assertThat(log.matching(" WARN "))
          .as("warnings, in:\n" + String.join("\n", lines))
          .singleElement()
          .asString()
          .contains("database pool once: lost a connection: SQLSTATE 08")
          .contains("one line per outage");
      assertThat(log.matching(" INFO "))
          .as("infos")
          .singleElement()
          .asString()
          .contains("database pool once works again after " + POOL + " failed tries");
      assertThat(lines).as("lines, no stack trace").hasSize(2);
    }
  }

  private static void query(Connection c) throws SQLException {
    try (Statement s = c.createStatement()) {
      s.execute("SELECT 1");
    }
  }
}
