package dev.once.example.warehouse;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.context.event.ApplicationFailedEvent;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ApplicationListener;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The application as a user starts it, with a mistake in {@code once.*}: it stops before JPA and
 * the web server start, and Boot's report names the property, its value and where it was set. The
 * database URL points nowhere — nothing may get far enough to use it.
 */
@ExtendWith(OutputCaptureExtension.class)
class StartupErrorsTest {

  /** What had started when the application gave up. */
  record Started(boolean jpa, boolean webServer, boolean dataSource) {}

  private static Started startFailing(String... args) {
    List<Started> seen = new ArrayList<>();
    SpringApplication app = new SpringApplication(WarehouseApplication.class);
    app.addListeners(
        (ApplicationListener<ApplicationFailedEvent>)
            e -> {
              ConfigurableApplicationContext ctx = e.getApplicationContext();
              seen.add(
                  new Started(
                      ctx.getBeanFactory().containsSingleton("entityManagerFactory"),
                      ctx instanceof WebServerApplicationContext w && w.getWebServer() != null,
                      ctx.getBeanFactory().containsSingleton("dataSource")));
            });
    List<String> all = new ArrayList<>(List.of(args));
    all.add("--spring.datasource.url=jdbc:postgresql://127.0.0.1:1/nowhere");
    all.add("--server.port=0");
    assertThatThrownBy(() -> app.run(all.toArray(String[]::new))).isInstanceOf(Exception.class);
    assertThat(seen).hasSize(1);
    return seen.get(0);
  }

  @Test
  void aBadConsumerSettingStopsTheStartBeforeJpaAndTheWebServerNamingTheProperty(
      CapturedOutput output) {
    Started started = startFailing("--once.consumers.warehouse.max-attempts=-1");
    assertThat(started).isEqualTo(new Started(false, false, false));
    assertThat(output)
        .contains("APPLICATION FAILED TO START")
        .contains("Property: once.consumers.warehouse.max-attempts")
        .contains("Value: \"-1\"")
        .contains(
            "Origin: \"once.consumers.warehouse.max-attempts\" from property source"
                + " \"commandLineArgs\"")
        .contains("Reason: must be between 1 and 1000, was -1");
  }

  @Test
  void aMistypedConsumerIdStopsTheStartNamingTheLineThatSetIt(CapturedOutput output) {
    Started started = startFailing("--once.consumers.warehous.workers=4");
    assertThat(started).isEqualTo(new Started(false, false, false));
    assertThat(output)
        .contains("Property: once.consumers.warehous.workers")
        .contains("no @OnceHandler has consumer = \"warehous\" (did you mean \"warehouse\"?)")
        .contains("the consumers of this application are [order-status, warehouse]");
  }
}
