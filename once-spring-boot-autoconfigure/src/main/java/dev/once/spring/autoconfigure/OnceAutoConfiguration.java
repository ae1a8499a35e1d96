package dev.once.spring.autoconfigure;

import dev.once.ConfigurationException;
import dev.once.DeadLetters;
import dev.once.Once;
import dev.once.OnceBuilder;
import dev.once.OnceListener;
import dev.once.Operations;
import dev.once.PayloadCodec;
import dev.once.Tracing;
import dev.once.spi.TransactionRunner;
import dev.once.spi.Transport;
import dev.once.spring.JsonMapperCodec;
import dev.once.spring.OnceHandlers;
import dev.once.spring.OnceHealthIndicator;
import dev.once.spring.OnceLifecycle;
import dev.once.spring.OncePublisher;
import dev.once.spring.SpringTransactions;
import dev.once.tablequeue.TableQueueTransport;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.function.Supplier;
import javax.sql.DataSource;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanFactoryPostProcessor;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.transaction.PlatformTransactionManager;
import tools.jackson.databind.json.JsonMapper;

/**
 * Once in a Spring Boot application with a {@link DataSource} and a transaction manager: the
 * schema, the transport, {@link Once} running its transactions on the application's transaction
 * manager, {@link OncePublisher}, the {@code @OnceHandler} consumers and the engines' lifecycle,
 * dead letters, and (with the actuator) a health indicator. Every bean backs off when the
 * application declares its own. {@code once.enabled=false} turns it all off.
 */
@AutoConfiguration(
    afterName = {
      "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration",
      "org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration",
      "org.springframework.boot.hibernate.autoconfigure.HibernateJpaAutoConfiguration",
      "org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration",
      "org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration",
      "org.springframework.boot.flyway.autoconfigure.FlywayAutoConfiguration"
    })
@ConditionalOnClass(PlatformTransactionManager.class)
@ConditionalOnBean({DataSource.class, PlatformTransactionManager.class})
@ConditionalOnProperty(
    prefix = "once",
    name = "enabled",
    havingValue = "true",
    matchIfMissing = true)
@EnableConfigurationProperties(OnceProperties.class)
public class OnceAutoConfiguration {

  /** Checks {@code once.*} before any bean is created (see {@link OncePropertiesCheck}). */
  @Bean
  static BeanFactoryPostProcessor oncePropertiesCheck() {
    return new OncePropertiesCheck();
  }

  @Bean
  @ConditionalOnMissingBean
  public OnceHandlers onceHandlers(ListableBeanFactory beans, ObjectProvider<PayloadCodec> codec) {
    OnceHandlers handlers = new OnceHandlers(beans, codecOf(codec));
    List<String> typed = handlers.typedPayloadMethods();
    if (!typed.isEmpty() && codec.getIfAvailable() == null) {
      find(codec, "the typed payload of @OnceHandler " + String.join(", ", typed));
    }
    return handlers;
  }

  /** The codec bean, or the one on the classpath (once-jackson); looked up at first use. */
  static Supplier<PayloadCodec> codecOf(ObjectProvider<PayloadCodec> codec) {
    return () -> find(codec, "a typed payload");
  }

  /** The advice names what a Spring application adds, not the core's builder. */
  private static PayloadCodec find(ObjectProvider<PayloadCodec> codec, String forWhat) {
    PayloadCodec bean = codec.getIfAvailable();
    if (bean != null) {
      return bean;
    }
    if (ServiceLoader.load(PayloadCodec.class).findFirst().isEmpty()) {
      throw new ConfigurationException(
          "codec",
          "is required for "
              + forWhat
              + ", and there is none: add the dependency dev.once:once-jackson, or Jackson 3"
              + " (spring-boot-starter-jackson: Once then uses the application's JsonMapper), or"
              + " declare a PayloadCodec bean");
    }
    return PayloadCodec.discover(); // the one on the classpath; more than one is refused
  }

  @Bean
  @ConditionalOnMissingBean(TransactionRunner.class)
  public SpringTransactions onceTransactions(
      PlatformTransactionManager transactionManager, DataSource dataSource) {
    return new SpringTransactions(transactionManager, dataSource);
  }

  @Bean
  @ConditionalOnMissingBean
  public OnceSchemaInitializer onceSchemaInitializer(
      DataSource dataSource, OnceProperties properties) {
    return new OnceSchemaInitializer(dataSource, properties.getSchema());
  }

  @Bean(destroyMethod = "close")
  @ConditionalOnMissingBean(Transport.class)
  @ConditionalOnProperty(
      prefix = "once",
      name = "transport",
      havingValue = "table",
      matchIfMissing = true)
  public TableQueueTransport onceTableQueue(
      DataSource dataSource, OnceProperties properties, OnceSchemaInitializer schema) {
    TableQueueTransport.Builder b = TableQueueTransport.builder(dataSource);
    Duration visibilityTimeout = properties.getTable().getVisibilityTimeout();
    if (visibilityTimeout != null) {
      b.visibilityTimeout(visibilityTimeout);
    }
    return b.build();
  }

  @Bean(destroyMethod = "close")
  @ConditionalOnMissingBean
  public Once once(
      DataSource dataSource,
      Transport transport,
      TransactionRunner transactions,
      OnceProperties properties,
      OnceHandlers handlers,
      ObjectProvider<OnceListener> listeners,
      ObjectProvider<PayloadCodec> codec,
      ObjectProvider<Tracing> tracing,
      OnceSchemaInitializer schema) {
    Set<String> destinations = new LinkedHashSet<>(properties.getDestinations());
    destinations.addAll(handlers.destinations());
    OnceBuilder b =
        Once.builder()
            .dataSource(dataSource)
            .transport(transport)
            .transactions(transactions)
            .destinations(destinations.toArray(String[]::new));
    properties.applyTo(b);
    codec.ifAvailable(b::codec);
    listeners.orderedStream().forEach(b::listener);
    tracing.ifAvailable(b::tracing);
    return b.build();
  }

  @Bean
  @ConditionalOnMissingBean
  public OncePublisher oncePublisher(Once once, ObjectProvider<PayloadCodec> codec) {
    return new OncePublisher(once, codecOf(codec));
  }

  @Bean
  @ConditionalOnMissingBean
  public DeadLetters onceDeadLetters(Once once) {
    return once.deadLetters();
  }

  @Bean
  @ConditionalOnMissingBean
  public OnceLifecycle onceLifecycle(
      Once once,
      OnceHandlers handlers,
      OnceProperties properties,
      ObjectProvider<Operations> operations) {
    return new OnceLifecycle(once, handlers, properties, operations.orderedStream().toList());
  }

  /** Typed payloads as JSON, with the application's Jackson mapper. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(JsonMapper.class)
  static class JsonPayloads {
    @Bean
    @ConditionalOnMissingBean
    PayloadCodec oncePayloadCodec(ObjectProvider<JsonMapper> mapper) {
      return new JsonMapperCodec(mapper.getIfAvailable(() -> JsonMapper.builder().build()));
    }
  }

  /** Once's health in the actuator's health endpoint. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(name = "org.springframework.boot.health.contributor.HealthIndicator")
  static class HealthConfiguration {
    @Bean
    @ConditionalOnMissingBean(name = "onceHealthIndicator")
    OnceHealthIndicator onceHealthIndicator(Once once, OnceProperties properties) {
      return new OnceHealthIndicator(once::status, properties.getHealth());
    }
  }
}
