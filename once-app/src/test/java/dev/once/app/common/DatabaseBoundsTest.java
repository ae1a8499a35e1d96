package dev.once.app.common;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import org.junit.jupiter.api.Test;

/**
 * The pools of the {@code once} command bound every wait on their sessions (a socket timeout, TCP
 * keepalive, a lock and an idle-in-transaction timeout on the server), unless the URL says
 * otherwise.
 */
class DatabaseBoundsTest {
  @Test
  void aPostgresUrlGetsEachBoundItDoesNotSetAlready() {
    assertThat(Database.withBounds("jdbc:postgresql://h:5432/test?user=postgres&socketTimeout=90"))
        .isEqualTo(
            "jdbc:postgresql://h:5432/test?user=postgres&socketTimeout=90&connectTimeout=10"
                + "&tcpKeepAlive=true&options=-c%20lock_timeout%3D10s%20-c%20"
                + "idle_in_transaction_session_timeout%3D30s");
    assertThat(Database.withBounds("jdbc:postgresql://h/test"))
        .startsWith("jdbc:postgresql://h/test?socketTimeout=30&");
  }

  @Test
  void aMariaDbUrlGetsSessionVariablesAMySqlUrlNotTheOneMySqlLacks() {
    assertThat(Database.withBounds("jdbc:mariadb://h:3306/test?user=root"))
        .isEqualTo(
            "jdbc:mariadb://h:3306/test?user=root&socketTimeout=30000&connectTimeout=10000"
                + "&tcpKeepAlive=true"
                + "&sessionVariables=innodb_lock_wait_timeout=10,idle_transaction_timeout=60");
    assertThat(Database.withBounds("jdbc:mysql://h:3306/test?user=root"))
        .doesNotContain("sessionVariables");
  }

  @Test
  void theLocalPostgresTakesTheBoundsAsSessionSettings() throws Exception {
    String url = Database.withBounds("jdbc:postgresql://127.0.0.1:5432/test?user=postgres");
    try (Connection c = DriverManager.getConnection(url);
        Statement s = c.createStatement();
        ResultSet rs =
            s.executeQuery(
                "SELECT current_setting('lock_timeout'),"
                    + " current_setting('idle_in_transaction_session_timeout')")) {
      rs.next();
      assertThat(rs.getString(1)).isEqualTo("10s");
      assertThat(rs.getString(2)).isEqualTo("30s");
      assertThat(c.getNetworkTimeout()).isEqualTo(30_000);
    }
  }
}
