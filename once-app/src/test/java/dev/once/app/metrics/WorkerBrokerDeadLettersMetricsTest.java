package dev.once.app.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import dev.once.app.LocalRabbit;
import dev.once.app.Main;
import dev.once.test.TestDatabase;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * {@code once worker --transport rabbitmq --metrics-port}: its /metrics counts what RabbitMQ
 * dead-lettered on its own per consumer group, read at each scrape. The worker is a process of its
 * own on a schema and a virtual host of this test's own.
 */
class WorkerBrokerDeadLettersMetricsTest {

  @Test
  void theWorkersMetricsCountWhatRabbitmqDeadLetteredItself() throws Exception {
    String schema = "metrics_bdl_" + ProcessHandle.current().pid(); // the worker creates it
    Path log = Files.createTempFile("once-worker", ".log");
    try (LocalRabbit rabbit = LocalRabbit.vhost("metrics-dlq")) {
      // Given: a careless consumer rejected a message of orders.warehouse before the worker ran
      AMQP.BasicProperties props =
          new AMQP.BasicProperties.Builder().messageId("m:1").type("OrderPaid").build();
      rabbit.rejectIntoDeadLetterQueue("orders", "warehouse", props, "{}");
      int port = freePort();
      Process worker =
          new ProcessBuilder(
                  java(
                      "worker",
                      "--db",
                      TestDatabase.embeddedUrl(),
                      "--schema",
                      schema,
                      "--transport",
                      "rabbitmq",
                      "--amqp",
                      rabbit.uri(),
                      "--relays",
                      "0",
                      "--threads",
                      "1",
                      "--metrics-port",
                      Integer.toString(port)))
              .redirectError(log.toFile())
              .start();
      try {
        // Then: the gauge says 1 for warehouse, 0 for notifier (once the worker serves /metrics)
        await()
            .atMost(Duration.ofSeconds(90))
            .ignoreExceptions()
            .untilAsserted(
                () ->
                    assertThat(scrape(port))
                        .contains("once_broker_dead_letters{consumer=\"warehouse\"} 1.0")
                        .contains("once_broker_dead_letters{consumer=\"notifier\"} 0.0"));
        // When: RabbitMQ dead-letters one more (as it does: to the dead-letter exchange)
        try (Connection c = rabbit.connection();
            Channel ch = c.createChannel()) {
          ch.basicPublish("once.dead-letter", "orders.warehouse", props, new byte[2]);
        }
        // Then: the next scrape reads it
        await()
            .atMost(Duration.ofSeconds(20))
            .untilAsserted(
                () ->
                    assertThat(scrape(port))
                        .contains("once_broker_dead_letters{consumer=\"warehouse\"} 2.0"));
      } finally {
        worker.destroy();
        if (!worker.waitFor(20, TimeUnit.SECONDS)) {
          worker.destroyForcibly();
        }
      }
    } finally {
      exec("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
      System.out.println("worker log: " + Files.readString(log).lines().limit(20).toList());
      Files.deleteIfExists(log);
    }
  }

  private static List<String> java(String... args) {
    List<String> command =
        new java.util.ArrayList<>(
            List.of(
                ProcessHandle.current().info().command().orElse("java"),
                "-Xmx256m",
                "-XX:TieredStopAtLevel=1",
                "-cp",
                System.getProperty("java.class.path"),
                Main.class.getName()));
    command.addAll(List.of(args));
    return command;
  }

  private static String scrape(int port) throws Exception {
    HttpResponse<String> r =
        HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics")).build(),
                HttpResponse.BodyHandlers.ofString());
    return r.body();
  }

  private static int freePort() throws Exception {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }

  private static void exec(String sql) throws Exception {
    try (java.sql.Connection c = DriverManager.getConnection(TestDatabase.embeddedUrl());
        Statement s = c.createStatement()) {
      s.execute(sql);
    }
  }
}
