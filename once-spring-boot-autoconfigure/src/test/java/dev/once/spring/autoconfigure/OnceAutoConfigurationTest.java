package dev.once.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.once.ConfigurationException;
import dev.once.Event;
import dev.once.EventId;
import dev.once.Handler;
import dev.once.Once;
import dev.once.ReceivedEvent;
import dev.once.Tracing;
import dev.once.Tx;
import dev.once.UnknownDestinationException;
import dev.once.internal.wiring.OnceImpl;
import dev.once.spi.PublishResult;
import dev.once.spi.Receiver;
import dev.once.spi.Transport;
import dev.once.spring.OnceHandler;
import dev.once.spring.OnceHandlers;
import dev.once.spring.OnceLifecycle;
import dev.once.spring.OncePublisher;
import dev.once.spring.SpringTransactions;
import dev.once.tablequeue.TableQueueTransport;
import dev.once.test.TestDatabase;
import dev.once.tracing.ObservationTracing;
import io.micrometer.observation.ObservationRegistry;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.mock.env.MockEnvironment;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;
import tools.jackson.databind.json.JsonMapper;

/** What the auto-configuration creates, from which properties, and when it backs off. */
class OnceAutoConfigurationTest {
  private static final AtomicInteger SCHEMAS = new AtomicInteger();

  /** A context on a fresh schema of the embedded PostgreSQL, Once's schema applied at start. */
  private static ApplicationContextRunner runner() {
    String schema = "auto_" + ProcessHandle.current().pid() + "_" + SCHEMAS.incrementAndGet();
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
                OnceAutoConfiguration.class))
        .withPropertyValues(
            "spring.datasource.url=" + base + "&currentSchema=" + schema,
            "spring.datasource.hikari.maximum-pool-size=6",
            "once.schema.apply=true",
            "once.destinations=orders");
  }

  static class Handlers {
    @OnceHandler(consumer = "warehouse", destination = "inferred")
    public void on(ReceivedEvent event) {}
  }

  @Test
  void aDataSourceAndATransactionManagerGiveOnceItsPublisherHandlersAndLifecycle() {
    runner()
        .withBean(Handlers.class)
        .run(
            ctx -> {
              assertThat(ctx).hasSingleBean(Once.class);
              assertThat(ctx).hasSingleBean(OncePublisher.class);
              assertThat(ctx).hasSingleBean(SpringTransactions.class);
              assertThat(ctx).hasSingleBean(TableQueueTransport.class);
              assertThat(ctx).hasSingleBean(OnceLifecycle.class);
              assertThat(ctx.getBean(Once.class).config().destinations())
                  .as("declared by property and inferred from @OnceHandler")
                  .contains("orders", "inferred");
              assertThat(ctx.getBean(OnceHandlers.class).subscriptions())
                  .containsExactly(new OnceHandlers.Subscription("warehouse", "inferred"));
            });
  }

  @Test
  void theApplicationsObservationRegistryTracesOnceWithNoCode() {
    traced()
        .run(
            ctx ->
                assertThat(((OnceImpl) ctx.getBean(Once.class)).tracing())
                    .isInstanceOf(ObservationTracing.class));
    traced()
        .withPropertyValues("once.tracing.enabled=false")
        .run(
            ctx ->
                assertThat(((OnceImpl) ctx.getBean(Once.class)).tracing()).isSameAs(Tracing.NONE));
    runner()
        .withConfiguration(AutoConfigurations.of(OnceTracingAutoConfiguration.class))
        .run(
            ctx ->
                assertThat(((OnceImpl) ctx.getBean(Once.class)).tracing())
                    .as("no registry, no tracing")
                    .isSameAs(Tracing.NONE));
  }

  /** A context with an application's {@link ObservationRegistry} (a fresh schema each). */
  private static ApplicationContextRunner traced() {
    return runner()
        .withConfiguration(AutoConfigurations.of(OnceTracingAutoConfiguration.class))
        .withBean(ObservationRegistry.class, ObservationRegistry::create);
  }

  @Test
  void onceEnabledFalseConfiguresNothing() {
    runner()
        .withPropertyValues("once.enabled=false")
        .run(
            ctx -> {
              assertThat(ctx).doesNotHaveBean(Once.class);
              assertThat(ctx).doesNotHaveBean(OncePublisher.class);
            });
  }

  @Test
  void everyBeanBacksOffWhenTheApplicationDeclaresItsOwn() {
    runner()
        .withBean("myTransport", Transport.class, () -> new NamedTransport())
        .run(
            ctx -> {
              assertThat(ctx).doesNotHaveBean(TableQueueTransport.class);
              assertThat(ctx.getBean(Transport.class)).isInstanceOf(NamedTransport.class);
            });
  }

  @Test
  void publishingToAnUndeclaredDestinationFailsAsInTheCore() {
    runner()
        .run(
            ctx -> {
              OncePublisher publisher = ctx.getBean(OncePublisher.class);
              Event e = Event.of(EventId.of("x", 1), "nowhere", null, "X", "{}");
              TransactionTemplate tx =
                  new TransactionTemplate(ctx.getBean(PlatformTransactionManager.class));
              assertThat(catchThrowable(() -> tx.executeWithoutResult(s -> publisher.publish(e))))
                  .isInstanceOf(UnknownDestinationException.class)
                  .hasMessageContaining("unknown destination 'nowhere'")
                  .hasMessageContaining("add it to once.destinations")
                  .hasMessageNotContaining("Once.builder()");
            });
  }

  static class Forwarder {
    @OnceHandler(consumer = "forwarder", destination = "inferred")
    public void on(Tx tx, ReceivedEvent event) {
      tx.publish(Event.of(EventId.of("forwarded", 1), "undeclared", null, "X", "{}"));
    }
  }

  @Test
  void aHandlerPublishingToAnUndeclaredDestinationIsAdvisedTheProperty() {
    runner()
        .withBean(Forwarder.class)
        .run(
            ctx -> {
              Handler handler = ctx.getBean(OnceHandlers.class).handler("forwarder", "inferred");
              Tx refusing =
                  (Tx)
                      Proxy.newProxyInstance(
                          Tx.class.getClassLoader(),
                          new Class<?>[] {Tx.class},
                          (proxy, method, args) -> {
                            throw new UnknownDestinationException(
                                ((Event) args[0]).destination(), Set.of("inferred", "orders"));
                          });
              ReceivedEvent event =
                  new ReceivedEvent(
                      "forwarder",
                      Event.of(EventId.of("x", 2), "inferred", null, "X", "{}"),
                      1,
                      false);
              assertThat(catchThrowable(() -> handler.handle(refusing, event)))
                  .isInstanceOf(UnknownDestinationException.class)
                  .hasMessage(
                      "unknown destination 'undeclared': declared destinations are [inferred,"
                          + " orders] (add it to once.destinations; the destinations of"
                          + " @OnceHandler methods are declared by themselves)");
            });
  }

  record OrderPaid(long orderId) {}

  static class TypedHandlers {
    @OnceHandler(consumer = "warehouse", destination = "orders")
    public void on(OrderPaid paid, ReceivedEvent event) {}
  }

  /** No Jackson and no once-jackson on the classpath, as in an application without a web layer. */
  private static ApplicationContextRunner withoutACodec() {
    return runner().withClassLoader(new FilteredClassLoader(JsonMapper.class));
  }

  @Test
  void aTypedHandlerWithoutACodecFailsTheStartNamingOnceJacksonAndTheMethod() {
    withoutACodec()
        .withBean(TypedHandlers.class)
        .run(
            ctx -> {
              assertThat(ctx).hasFailed();
              assertThat(FailureReport.of(ctx.getStartupFailure()))
                  .contains("Once has no PayloadCodec")
                  .contains(".on(OrderPaid)")
                  .contains("dev.once:once-jackson")
                  .contains("declare a PayloadCodec bean")
                  .doesNotContain("OnceBuilder");
            });
  }

  @Test
  void aTypedPublishWithoutACodecIsAdvisedOnceJacksonNotTheCoreBuilder() {
    withoutACodec()
        .withBean(Handlers.class)
        .run(
            ctx -> {
              assertThat(ctx).hasNotFailed();
              OncePublisher publisher = ctx.getBean(OncePublisher.class);
              TransactionTemplate tx =
                  new TransactionTemplate(ctx.getBean(PlatformTransactionManager.class));
              assertThat(
                      catchThrowable(
                          () ->
                              tx.executeWithoutResult(
                                  s ->
                                      publisher.publish(
                                          EventId.of("order-paid", 1),
                                          "orders",
                                          "1",
                                          new OrderPaid(1)))))
                  .isInstanceOf(ConfigurationException.class)
                  .hasMessageContaining("dev.once:once-jackson")
                  .hasMessageContaining("PayloadCodec bean")
                  .hasMessageNotContaining("OnceBuilder");
            });
  }

  @Test
  void aMissingSchemaIsReportedWithTheOnceSchemaProperties() {
    runner()
        .withPropertyValues("once.schema.apply=false", "once.schema.flyway=false")
        .run(
            ctx -> {
              assertThat(ctx).hasFailed();
              assertThat(FailureReport.of(ctx.getStartupFailure()))
                  .contains("Once's table once_")
                  .contains("is missing from schema 'auto_")
                  .contains("once.schema.flyway=true, the default")
                  .contains("once.schema.apply=true")
                  .doesNotContain("once schema apply");
            });
  }

  @Test
  void anUnknownConsumerIdOnlyWarnsWhenTheApplicationSaysSo() {
    runner()
        .withBean(Handlers.class)
        .withPropertyValues(
            "once.consumers.elsewhere.workers=4", "once.fail-on-unknown-consumers=false")
        .run(ctx -> assertThat(ctx).hasNotFailed().hasSingleBean(Once.class));
  }

  @Test
  void theIdeMetadataHasNoJavadocTags() throws Exception {
    String metadata;
    try (var in = getClass().getResourceAsStream("/META-INF/spring-configuration-metadata.json")) {
      metadata = new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
    }
    assertThat(metadata).contains("\"once.schema.flyway\"").doesNotContain("{@");
  }

  @Test
  void theRabbitUriComesFromSpringRabbitmqPropertiesWithItsPartsEncoded() {
    MockEnvironment env =
        new MockEnvironment()
            .withProperty("spring.rabbitmq.host", "rabbit.internal")
            .withProperty("spring.rabbitmq.port", "5673")
            .withProperty("spring.rabbitmq.username", "svc")
            .withProperty("spring.rabbitmq.password", "p@ss/word");
    assertThat(OnceRabbitAutoConfiguration.uri(env))
        .isEqualTo("amqp://svc:p%40ss%2Fword@rabbit.internal:5673/%2F");
    assertThat(OnceRabbitAutoConfiguration.uri(new MockEnvironment()))
        .isEqualTo("amqp://guest:guest@localhost:5672/%2F");
  }

  @Test
  void theKafkaServersComeFromSpringKafkaBootstrapServersAsAListOrAString() {
    assertThat(
            OnceKafkaAutoConfiguration.bootstrapServers(
                new MockEnvironment()
                    .withProperty("spring.kafka.bootstrap-servers[0]", "k1:9092")
                    .withProperty("spring.kafka.bootstrap-servers[1]", "k2:9092")))
        .isEqualTo("k1:9092,k2:9092");
    assertThat(
            OnceKafkaAutoConfiguration.bootstrapServers(
                new MockEnvironment().withProperty("spring.kafka.bootstrap-servers", "a:1,b:2")))
        .isEqualTo("a:1,b:2");
    assertThat(OnceKafkaAutoConfiguration.bootstrapServers(new MockEnvironment()))
        .isEqualTo("localhost:9092");
  }

  /** A stand-in transport the application declares itself; never used beyond its type. */
  static final class NamedTransport implements Transport {
    @Override
    public String name() {
      return "mine";
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
}
