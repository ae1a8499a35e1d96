package dev.once.app.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.once.app.LocalRabbit;
import dev.once.rabbitmq.RabbitTransport;
import dev.once.test.TestDatabase;
import dev.once.testkit.TcpProxy;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * {@code /metrics} answers at once while the broker does not: the worker's connection to RabbitMQ
 * goes silent (a proxy of the test stops forwarding without telling either side, as a NAT that
 * dropped its state does), and scrapes keep coming back within a second with the last count of the
 * broker's own dead letters and its growing age. Before, each scrape asked the broker and waited
 * for the client's heartbeat timeout.
 */
class MetricsWhileBrokerUnreachableTest {

  @Test
  void scrapesStayFastWhileTheBrokerConnectionIsSilent() throws Exception {
    try (LocalRabbit rabbit = LocalRabbit.vhost("metrics-silent");
        TcpProxy proxy = TcpProxy.to("127.0.0.1", 5672);
        TestDatabase db = TestDatabase.embedded();
        RabbitTransport transport =
            RabbitTransport.builder()
                .uri(rabbit.uri().replace("127.0.0.1:5672", "127.0.0.1:" + proxy.port()))
                .build();
        WorkerMetrics metrics =
            WorkerMetrics.start(0, db.dataSource())
                .brokerDeadLetters(transport, Map.of("warehouse", "orders"))) {
      transport.declare("orders", "warehouse");
      HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
      await()
          .atMost(Duration.ofSeconds(30))
          .untilAsserted(
              () ->
                  assertThat(scrape(http, metrics.port()))
                      .contains("once_broker_dead_letters{consumer=\"warehouse\"} 0.0"));

      assertThat(proxy.blackhole()).as("connections gone silent").isPositive();
      // scrapes every 250 ms until the count's age shows it is not fresh (older than 4 s): the
      // broker stays silent that long, and every scrape meanwhile is timed
      List<Long> millis = new ArrayList<>();
      await()
          .atMost(Duration.ofSeconds(60))
          .pollInterval(Duration.ofMillis(250))
          .until(
              () -> {
                long t0 = System.nanoTime();
                String body = scrape(http, metrics.port());
                millis.add((System.nanoTime() - t0) / 1_000_000);
                assertThat(body).contains("once_broker_dead_letters{consumer=\"warehouse\"} 0.0");
                return age(body) > 4.0;
              });
      System.out.println("SCRAPES while the broker is silent (ms): " + millis);
      assertThat(millis).as("scrapes while silent").isNotEmpty();
      assertThat(millis).as("scrape times (ms)").allMatch(ms -> ms < 1_000);
    }
  }

  private static String scrape(HttpClient http, int port) throws Exception {
    HttpRequest get =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics"))
            .timeout(Duration.ofSeconds(3))
            .build();
    return http.send(get, HttpResponse.BodyHandlers.ofString()).body();
  }

  private static double age(String body) {
    Matcher m =
        Pattern.compile("once_broker_dead_letters_age_seconds\\{consumer=\"warehouse\"} (\\S+)")
            .matcher(body);
    assertThat(m.find()).as("the age gauge: " + body).isTrue();
    return Double.parseDouble(m.group(1));
  }
}
