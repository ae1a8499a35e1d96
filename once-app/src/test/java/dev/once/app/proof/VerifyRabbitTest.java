package dev.once.app.proof;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.once.test.RabbitVhosts;
import dev.once.test.TestDatabase;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * {@code once verify} on the local PostgreSQL server with RabbitMQ: a schema and a virtual host of
 * its own, dropped afterwards. Skipped when either service is down, except in CI.
 */
class VerifyRabbitTest {

  @Test
  void twoWorkerProcessesOnPostgresqlAndRabbitmqKilledTenTimesProcessEveryOrderExactlyOnce()
      throws Exception {
    requireRabbit();
    String schema = "verify_" + ProcessHandle.current().pid();
    String vhost = "once-verify-" + ProcessHandle.current().pid();
    sql("CREATE SCHEMA " + schema);
    RabbitVhosts.create(vhost);
    try {
      Run run =
          Run.of(
              "verify",
              "--db",
              TestDatabase.LOCAL_URL,
              "--schema",
              schema,
              "--transport",
              "rabbitmq",
              "--amqp",
              "amqp://guest:guest@127.0.0.1:5672/" + vhost,
              "--workers",
              "2",
              "--events",
              "500",
              "--kills",
              "10",
              "--json");
      assertThat(run.exitCode()).as(run.toString()).isZero();
      JsonNode json = new ObjectMapper().readTree(run.out());
      VerifyCommandTest.assertVerified(json, 500, 10);
      assertThat(json.get("transport").asText()).isEqualTo("rabbitmq");
    } finally {
      sql("DROP SCHEMA " + schema + " CASCADE");
      RabbitVhosts.delete(vhost);
    }
  }

  private static void requireRabbit() {
    TestDatabase.local().close(); // skips (or fails in CI) without the local PostgreSQL
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress("127.0.0.1", 5672), 1_000);
    } catch (IOException e) {
      String message =
          "RabbitMQ at 127.0.0.1:5672 not reachable ("
              + e.getMessage()
              + "): start it with 'rabbitmq-server -detached && rabbitmqctl await_startup'";
      if ("true".equals(System.getenv("CI"))) {
        Assertions.fail(message);
      }
      Assumptions.abort(message);
    }
  }

  private static void sql(String statement) throws Exception {
    try (Connection c = DriverManager.getConnection(TestDatabase.LOCAL_URL);
        Statement s = c.createStatement()) {
      s.execute(statement);
    }
  }
}
