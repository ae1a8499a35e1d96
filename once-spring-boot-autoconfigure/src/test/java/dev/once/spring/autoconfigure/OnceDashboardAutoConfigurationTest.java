package dev.once.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.once.Once;
import dev.once.dashboard.Dashboard;
import dev.once.dashboard.DashboardListener;
import dev.once.test.TestDatabase;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.concurrent.atomic.AtomicInteger;
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
