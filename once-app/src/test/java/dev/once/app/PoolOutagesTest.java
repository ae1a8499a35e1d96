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
      // the pool may add a connection back between two of the four failures (a loaded machine,
      // fresh-clone CI of session 7): the outage is then reported as two, each one WARN and one
      // INFO, their failed tries adding up to the pool's four
      await()
          .atMost(Duration.ofSeconds(20))
          .untilAsserted(
              () -> assertThat(failedTries(log.matching("works again"))).isEqualTo(POOL));
      try (Connection c = db.dataSource().getConnection()) {
        query(c);
      }

      List<String> lines = log.matching("");
      List<String> infos = log.matching(" INFO ");
      assertThat(infos).as("infos").hasSizeBetween(1, 2);
      assertThat(log.matching(" WARN "))
          .as("warnings, in:\n" + String.join("\n", lines))
          .hasSameSizeAs(infos)
          .allSatisfy(
              w ->
                  assertThat(w)
                      .contains("database pool once: lost a connection: SQLSTATE 08")
                      .contains("one line per outage"));
      assertThat(infos).allSatisfy(i -> assertThat(i).contains("database pool once works again"));
      assertThat(lines).as("lines, no stack trace").hasSize(2 * infos.size());
    }
  }

  private static void query(Connection c) throws SQLException {
    try (Statement s = c.createStatement()) {
      s.execute("SELECT 1");
    }
  }

  /** The failed tries that the "works again" lines report, added up. */
  private static int failedTries(List<String> lines) {
    int n = 0;
    for (String line : lines) {
      java.util.regex.Matcher m =
          java.util.regex.Pattern.compile("after (\\d+) failed tries").matcher(line);
      if (m.find()) {
        n += Integer.parseInt(m.group(1));
      }
    }
    return n;
  }
}
