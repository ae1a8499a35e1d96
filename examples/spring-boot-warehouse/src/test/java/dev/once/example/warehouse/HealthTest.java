package dev.once.example.warehouse;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.once.DeadLetterFilter;
import dev.once.DeadLetters;
import dev.once.Event;
import dev.once.EventId;
import dev.once.WorkloadStatus;
import dev.once.jdbc.Dialects;
import dev.once.spi.QueueAdmin;
import dev.once.spi.Transport;
import dev.once.spring.OnceHealthIndicator;
import dev.once.spring.OncePublisher;
import dev.once.spring.autoconfigure.OnceProperties;
import io.micrometer.core.instrument.MeterRegistry;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/** The actuator's view of Once: health against thresholds, and metrics in the app's registry. */
class HealthTest extends WarehouseTest {
  private static final AtomicLong N = new AtomicLong(System.currentTimeMillis() + 2_000_000);

  @Autowired OnceHealthIndicator health;
  @Autowired DeadLetters deadLetters;
  @Autowired OncePublisher publisher;
  @Autowired PlatformTransactionManager transactionManager;
  @Autowired Transport transport;
  @Autowired OnceProperties properties;
  @Autowired MeterRegistry registry;
  @LocalServerPort int port;

  private void publish(Event e) {
    new TransactionTemplate(transactionManager).executeWithoutResult(s -> publisher.publish(e));
  }

  private void discardDeadLetters() {
    deadLetters.discard(DeadLetterFilter.open(), "test", "clean slate");
  }

  @Test
  void aDeadLetterIsReportedButKeepsTheApplicationUpByDefault() throws Exception {
    discardDeadLetters(); // other tests' broken handlers may have left some
    long n = N.incrementAndGet();
    publish(ExactlyOnceTest.orderPaid(n, "poison-orders"));
    await()
        .atMost(Duration.ofSeconds(20))
        .until(() -> health.health(true).getDetails().get("deadLetters").equals(1L));
    assertThat(health.health(true).getStatus()).isEqualTo(Status.UP);
    assertThat(health.health(true).getDetails()).containsKey("deadLettersByConsumer");
    HttpResponse<String> whole = get("/actuator/health");
    assertThat(whole.statusCode()).as("what a load balancer asks").isEqualTo(200);
    assertThat(whole.body()).contains("\"deadLetters\":1");

    OnceProperties.Health downAtOne = thresholds(null, null);
    downAtOne.setDeadLettersDown(1);
    assertThat(indicator(Duration.ZERO, downAtOne).health(true).getStatus())
        .as("DOWN when the application asks for it")
        .isEqualTo(Status.DOWN);
    discardDeadLetters();
    assertThat(indicator(Duration.ZERO, downAtOne).health(true).getStatus()).isEqualTo(Status.UP);
  }

  @Test
  void livenessAndReadinessNeverIncludeOnce() throws Exception {
    for (String group : new String[] {"liveness", "readiness"}) {
      HttpResponse<String> r = get("/actuator/health/" + group);
      assertThat(r.statusCode()).as(group).isEqualTo(200);
      assertThat(r.body()).as(group).doesNotContain("once").doesNotContain("deadLetters");
    }
  }

  @Test
  void theActuatorServesOncesHealthWithItsDetails() throws Exception {
    discardDeadLetters();
    HttpResponse<String> r = get("/actuator/health/once");
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.body())
        .contains("\"status\":\"UP\"")
        .contains("\"deadLetters\":0")
        .contains("\"deadLettersDown\":\"never\"");
  }

  @Test
  void backlogAgeThresholdsTurnTheHealthOnlyWhenSet() {
    discardDeadLetters();
    transport.declare("parked", "nobody"); // a queue nobody reads: its rows wait
    long n = N.incrementAndGet();
    publish(Event.of(EventId.of("parked", n), "parked", null, "Parked", "{}"));
    await()
        .atMost(Duration.ofSeconds(20))
        .until(() -> count("SELECT count(*) FROM once_queue WHERE consumer_group = 'nobody'") > 0);
    try {
      OnceProperties.Health set = thresholds(Duration.ofMinutes(1), Duration.ofMinutes(15));
      assertThat(healthIn(Duration.ZERO, set)).isEqualTo(Status.UP);
      assertThat(healthIn(Duration.ofMinutes(2), set)).isEqualTo(Status.OUT_OF_SERVICE);
      assertThat(healthIn(Duration.ofMinutes(20), set)).isEqualTo(Status.DOWN);
      assertThat(healthIn(Duration.ofHours(20), properties.getHealth()))
          .as("the defaults: never")
          .isEqualTo(Status.UP);
    } finally {
      transport.capability(QueueAdmin.class).orElseThrow().purge("parked", "nobody");
    }
  }

  private static OnceProperties.Health thresholds(Duration outOfService, Duration down) {
    OnceProperties.Health h = new OnceProperties.Health();
    h.setBacklogAgeOutOfService(outOfService);
    h.setBacklogAgeDown(down);
    return h;
  }

  /** The health as it will be {@code later}, read with a clock moved forward. */
  private Status healthIn(Duration later, OnceProperties.Health thresholds) {
    return indicator(later, thresholds).health(true).getStatus();
  }

  private OnceHealthIndicator indicator(Duration later, OnceProperties.Health thresholds) {
    return new OnceHealthIndicator(
        () -> WorkloadStatus.read(dataSource, Dialects.postgresql(), Instant.now().plus(later)),
        thresholds);
  }

  private HttpResponse<String> get(String path) throws Exception {
    return HttpClient.newHttpClient()
        .send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).build(),
            HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void onceMetricsAreInTheApplicationsMeterRegistry() {
    long n = N.incrementAndGet();
    publish(ExactlyOnceTest.orderPaid(n, "orders"));
    await()
        .atMost(Duration.ofSeconds(20))
        .until(
            () ->
                registry.find("once.consumer.outcomes").tag("consumer", "warehouse").counter()
                    != null);
    assertThat(registry.find("once.outbox.written").counters()).isNotEmpty();
  }
}
