package dev.once.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.once.Event;
import dev.once.Once;
import dev.once.ReceivedEvent;
import dev.once.dashboard.Dashboard;
import dev.once.dashboard.DashboardListener;
import dev.once.spi.BrokerDeadLetterReader;
import dev.once.spi.BrokerDeadLetters;
import dev.once.spi.PublishResult;
import dev.once.spi.Receiver;
import dev.once.spi.Transport;
import dev.once.spring.OnceHandler;
import dev.once.test.TestDatabase;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** The dashboard is served by the application only when asked for, and closes with it. */
class OnceDashboardAutoConfigurationTest {
  private static final AtomicInteger SCHEMAS = new AtomicInteger();

  private static ApplicationContextRunner runner() {
    String schema = "dash_" + ProcessHandle.current().pid() + "_" + SCHEMAS.incrementAndGet();
    String base = TestDatabase.embeddedUrl();
    try (Connection c = DriverManager.getConnection(base);
        Statement s = c.createStatement()) {
      s.execute("CREATE SCHEMA " + schema);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
    return new ApplicationContextRunner()
        .withConfiguration(
            AutoConfigurations.of(
                DataSourceAutoConfiguration.class,
                DataSourceTransactionManagerAutoConfiguration.class,
                OnceAutoConfiguration.class,
                OnceDashboardAutoConfiguration.class))
        .withPropertyValues(
            "spring.datasource.url=" + base + "&currentSchema=" + schema,
            "spring.datasource.hikari.maximum-pool-size=6",
            "once.schema.apply=true",
            "once.destinations=orders");
  }

  @Test
  void enabledTheApplicationServesTheDashboardOnItsOwnPort() {
    runner()
        .withPropertyValues("once.dashboard.enabled=true", "once.dashboard.port=0")
        .run(
            ctx -> {
              assertThat(ctx).hasSingleBean(Dashboard.class);
              Dashboard dashboard = ctx.getBean(Dashboard.class);
              DashboardListener listener = ctx.getBean(DashboardListener.class);
              assertThat(dashboard.listener()).isSameAs(listener);
              assertThat(dashboard.url()).startsWith("http://127.0.0.1:").doesNotContain("token");
              assertThat(dashboard.token()).as("generated").hasSizeGreaterThanOrEqualTo(16);

              HttpResponse<String> overview =
                  HttpClient.newHttpClient()
                      .send(
                          HttpRequest.newBuilder(URI.create(dashboard.url() + "api/overview"))
                              .build(),
                          HttpResponse.BodyHandlers.ofString());
              assertThat(overview.statusCode()).isEqualTo(200);
              assertThat(overview.body()).contains("\"consumers\"");
            });
  }

  static class Handlers {
    @OnceHandler(consumer = "warehouse", destination = "orders")
    public void on(ReceivedEvent event) {}
  }

  /** A broker that dead-lettered 3 messages of orders.warehouse on its own. */
  static final class BrokerWithDeadLetters implements Transport, BrokerDeadLetters {
    @Override
    public long count(String destination, String consumerId) {
      return destination.equals("orders") && consumerId.equals("warehouse") ? 3 : 0;
    }

    @Override
    public BrokerDeadLetterReader reader(String destination, String consumerId) {
      throw new UnsupportedOperationException();
    }

    @Override
    public String name() {
      return "broker-with-dead-letters";
    }

    @Override
    public void declare(String destination, String consumerId) {}

    @Override
    public PublishResult publish(List<Event> batch, Duration confirmTimeout) {
      throw new UnsupportedOperationException();
    }

    @Override
    public Receiver receiver(String destination, String consumerId) {
      throw new UnsupportedOperationException();
    }

    @Override
    public void close() {}
  }

  @Test
  void theDashboardAsksTheApplicationsTransportForTheBrokersOwnDeadLettersPerConsumer() {
    runner()
        .withPropertyValues(
            "once.dashboard.enabled=true",
            "once.dashboard.port=0",
            "once.consumers.warehouse.enabled=false", // the transport above receives nothing
            "once.relay.enabled=false",
            "once.retention.enabled=false")
        .withBean(Handlers.class)
        .withBean("myTransport", Transport.class, BrokerWithDeadLetters::new)
        .run(
            ctx -> {
              Dashboard dashboard = ctx.getBean(Dashboard.class);
              // a dead letter of warehouse, so that the consumer is listed
              try (Connection c = ctx.getBean(DataSource.class).getConnection();
                  Statement s = c.createStatement()) {
                s.execute(
                    "INSERT INTO once_dead_letter (consumer_id, event_id, destination,"
                        + " event_type, payload, attempts, first_failed_at, last_failed_at,"
                        + " error_class, error_fingerprint, error_message, dead_at) VALUES"
                        + " ('warehouse', 'order-paid:1', 'orders', 'OrderPaid', '\\x7b7d', 1,"
                        + " now(), now(), 'X', 'f', 'm', now())");
              }
              dashboard.sampleNow();
              HttpResponse<String> overview =
                  HttpClient.newHttpClient()
                      .send(
                          HttpRequest.newBuilder(URI.create(dashboard.url() + "api/overview"))
                              .build(),
                          HttpResponse.BodyHandlers.ofString());
              assertThat(overview.body()).contains("\"broker_dead_letters\":3");
            });
  }

  @Test
  void notEnabledThereIsNoDashboard() {
    runner()
        .run(
            ctx -> {
              assertThat(ctx).hasSingleBean(Once.class);
              assertThat(ctx).doesNotHaveBean(Dashboard.class);
              assertThat(ctx).doesNotHaveBean(DashboardListener.class);
            });
  }
}
