package dev.once.tracing;

import dev.once.rabbitmq.RabbitTransport;
import dev.once.spi.Transport;
import dev.once.test.RabbitVhosts;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;

/** The trace on RabbitMQ (127.0.0.1:5672), in a virtual host of this class, deleted afterwards. */
class RabbitTraceTest extends TracePipelineContract {
  private static String vhost;

  @BeforeAll
  static void vhost() throws Exception {
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress("127.0.0.1", 5672), 1_000);
    } catch (IOException e) {
      Assumptions.assumeTrue(System.getenv("CI") == null, "RabbitMQ is not running: " + e);
      Assumptions.abort("RabbitMQ at 127.0.0.1:5672 is not running");
    }
    vhost = "once-tracing-" + ProcessHandle.current().pid();
    RabbitVhosts.create(vhost);
  }

  @AfterAll
  static void dropVhost() throws Exception {
    if (vhost != null) {
      RabbitVhosts.delete(vhost);
    }
  }

  @Override
  Transport transport(DataSource ds) {
    return RabbitTransport.builder()
        .uri(
            "amqp://guest:guest@127.0.0.1:5672/" + URLEncoder.encode(vhost, StandardCharsets.UTF_8))
        .build();
  }
}
