package dev.once.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.once.ReceivedEvent;
import dev.once.kafka.KafkaTransport;
import dev.once.rabbitmq.RabbitTransport;
import dev.once.spring.OnceHandler;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.properties.bind.BindException;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * A bad {@code once.*} value fails the start in Boot's own report — Property, Value, Origin, Reason
 * — naming the property that was set, before any bean of the application is created. The database
 * URL points nowhere: nothing gets far enough to connect.
 */
class OncePropertiesCheckTest {
  /** Beans created in a context: none, when the properties are refused. */
  static final AtomicInteger CREATED = new AtomicInteger();

  static class Witness {
    Witness() {
      CREATED.incrementAndGet();
    }
  }

  static class Handlers {
    @OnceHandler(consumer = "shipping", destination = "orders")
    public void ship(ReceivedEvent event) {}

    @OnceHandler(consumer = "billing", destination = "orders")
    public void bill(ReceivedEvent event) {}
  }

  private static ApplicationContextRunner runner() {
    return new ApplicationContextRunner()
        .withConfiguration(
            AutoConfigurations.of(
                DataSourceAutoConfiguration.class,
                DataSourceTransactionManagerAutoConfiguration.class,
                OnceAutoConfiguration.class,
                OnceRabbitAutoConfiguration.class,
                OnceKafkaAutoConfiguration.class))
        .withBean(Handlers.class)
        .withBean(Witness.class)
        .withPropertyValues("spring.datasource.url=jdbc:postgresql://127.0.0.1:1/nowhere");
  }

  /** The report of a context started with {@code properties}, which must fail. */
  private static String refused(ApplicationContextRunner runner, String... properties) {
    String[] report = new String[1];
    CREATED.set(0);
    runner
        .withPropertyValues(properties)
        .run(
            ctx -> {
              assertThat(ctx).hasFailed();
              report[0] = FailureReport.of(ctx.getStartupFailure());
            });
    assertThat(CREATED).as("beans created before the properties were refused").hasValue(0);
    return report[0];
  }

  private static String refused(String... properties) {
    return refused(runner(), properties);
  }

  @Test
  void aConsumersMaxAttemptsNamesThatConsumersProperty() {
    assertThat(refused("once.consumers.shipping.max-attempts=-1"))
        .contains("Property: once.consumers.shipping.max-attempts")
        .contains("Value: \"-1\"")
        .contains("Origin: \"once.consumers.shipping.max-attempts\" from property source")
        .contains("Reason: must be between 1 and 1000, was -1")
        .doesNotContain("retry.maxAttempts");
  }

  @Test
  void theRelaysMaxAttemptsNamesTheRelaysProperty() {
    assertThat(refused("once.relay.max-attempts=-3"))
        .contains("Property: once.relay.max-attempts")
        .contains("Value: \"-3\"")
        .contains("Reason: must be between 1 and 1000, was -3")
        .doesNotContain("consumers");
  }

  @ParameterizedTest(name = "{0}={1}")
  @CsvSource({
    "once.consumers.billing.workers, 0, 'must be between 1 and 256, was 0'",
    "once.consumers.billing.batch-size, 65, 'must be between 1 and 64, was 65'",
    "once.consumers.billing.idle-wait, 0s, 'must be > 0, was PT0S'",
    "once.consumers.billing.retry-delay, -1s, 'must be > 0, was PT-1S'",
    "once.relay.batch-size, 0, 'must be between 1 and 10000, was 0'",
    "once.relay.idle-wait, 0ms, 'must be > 0, was PT0S'",
    "once.relay.confirm-timeout, 0s, 'must be > 0, was PT0S'",
    "once.relay.max-retry-delay, 1s, 'must be >= retry-delay (PT5S), was PT1S'",
    "once.partitions, 0, 'must be between 1 and 4096, was 0'",
    "once.table.visibility-timeout, 0s, 'must be > 0, was PT0S'",
    "once.rabbitmq.prefetch, 0, 'must be between 1 and 65535, was 0'",
    "once.rabbitmq.delivery-limit, 0, 'must be between 1 and 1000000, was 0'",
    "once.kafka.partitions, 0, 'must be between 1 and 10000, was 0'",
    "once.metrics.refresh-interval, 0s, 'must be > 0, was PT0S'",
    "once.health.backlog-age-down, 0s, 'must be > 0 (or left unset: never), was PT0S'",
  })
  void everyBadValueIsReportedUnderItsOwnProperty(String property, String value, String reason) {
    assertThat(refused(property + "=" + value))
        .contains("Property: " + property)
        .contains("Origin: \"" + property + "\" from property source")
        .contains("Reason: " + reason);
  }

  @Test
  void aMaxRetryDelayBelowTheRetryDelaySaysWhichPropertyItIsBelow() {
    assertThat(
            refused(
                "once.consumers.billing.retry-delay=10s",
                "once.consumers.billing.max-retry-delay=2s"))
        .contains("Property: once.consumers.billing.max-retry-delay")
        .contains("Reason: must be >= retry-delay (PT10S), was PT2S");
  }

  @Test
  void anUnknownTransportListsTheValidOnes() {
    assertThat(refused("once.transport=tabel"))
        .contains("Property: once.transport")
        .contains("Value: \"tabel\"")
        .contains("The following values are valid:")
        .contains("    kafka")
        .contains("    rabbitmq")
        .contains("    table");
  }

  @Test
  void rabbitmqWithoutItsModuleNamesTheModule() {
    assertThat(
            refused(
                runner().withClassLoader(new FilteredClassLoader(RabbitTransport.class)),
                "once.transport=rabbitmq"))
        .contains("Property: once.transport")
        .contains("Value: \"rabbitmq\"")
        .contains("dev.once:once-rabbitmq, which is not on the classpath")
        .contains("choose one of table, kafka")
        .doesNotContain("required a bean of type");
  }

  @Test
  void kafkaWithoutItsModuleNamesTheModule() {
    assertThat(
            refused(
                runner().withClassLoader(new FilteredClassLoader(KafkaTransport.class)),
                "once.transport=kafka"))
        .contains("Property: once.transport")
        .contains("dev.once:once-kafka, which is not on the classpath");
  }

  @Test
  void aConsumerIdNoHandlerUsesFailsTheStartAndSuggestsTheClosestOne() {
    assertThat(refused("once.consumers.shiping.workers=4"))
        .contains("Property: once.consumers.shiping.workers")
        .contains("Value: \"4\"")
        .contains("Origin: \"once.consumers.shiping.workers\" from property source")
        .contains("once.consumers.shiping.* is set, but no @OnceHandler has consumer = \"shiping\"")
        .contains("(did you mean \"shipping\"?)")
        .contains("the consumers of this application are [billing, shipping]")
        .contains("once.fail-on-unknown-consumers=false");
  }

  @Test
  void aNegativeDeadLetterThresholdIsRefused() {
    assertThat(refused("once.health.dead-letters-down=-1"))
        .contains("Property: once.health.dead-letters-down")
        .contains("Value: \"-1\"")
        .contains("Reason: must be 0 (dead letters never turn the health DOWN, the default)");
  }

  @Test
  void backlogAgeDownBelowOutOfServiceIsRefused() {
    assertThat(
            refused(
                "once.health.backlog-age-out-of-service=10m", "once.health.backlog-age-down=1m"))
        .contains("Property: once.health.backlog-age-down")
        .contains("Reason: must be >= backlog-age-out-of-service (PT10M), was PT1M");
  }

  @Test
  void goodPropertiesPassTheCheck() {
    runner()
        .withPropertyValues(
            "once.consumers.shipping.workers=4",
            "once.consumers.billing.max-attempts=1",
            "once.relay.max-attempts=3",
            "once.health.dead-letters-down=5",
            "once.transport=rabbitmq")
        .run(
            ctx -> {
              // past the check, it fails connecting to the database nowhere
              assertThat(ctx).hasFailed();
              assertThat(ctx.getStartupFailure())
                  .hasStackTraceContaining("Connection to 127.0.0.1:1 refused")
                  .satisfies(
                      e -> assertThat(FailureReport.firstOf(e, BindException.class)).isNull());
            });
  }
}
