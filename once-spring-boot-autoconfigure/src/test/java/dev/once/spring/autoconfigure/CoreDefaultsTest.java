package dev.once.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.once.ConsumerBuilder;
import dev.once.ConsumerConfig;
import dev.once.Handler;
import dev.once.Once;
import dev.once.OnceConfig;
import dev.once.kafka.KafkaTransport;
import dev.once.rabbitmq.RabbitTransport;
import dev.once.tablequeue.TableQueueTransport;
import dev.once.test.TestDatabase;
import dev.once.web.IdempotencySettings;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * One default per setting: what a user leaves unset in {@code once.*} is what an empty core builder
 * gives, because the properties hold no defaults of their own (a copy drifted once: the consumer's
 * backoff was 1 s to 5 min from Spring, 200 ms to 30 s from Java).
 */
class CoreDefaultsTest {
  private static final Handler HANDLER = (tx, event) -> {};

  @Test
  void aConsumerFromEmptyPropertiesIsTheOneFromAnEmptyBuilder() {
    ConsumerConfig fromJava = configOf(b -> b);
    ConsumerConfig fromSpring = configOf(new OnceProperties.Consumer()::applyTo);

    assertThat(fromSpring).isEqualTo(fromJava);
  }

  @Test
  void aConsumerPropertySetChangesOnlyItsSetting() {
    OnceProperties.Consumer c = new OnceProperties.Consumer();
    c.setRetryDelay(Duration.ofSeconds(2));

    ConsumerConfig fromSpring = configOf(c::applyTo);

    ConsumerConfig fromJava = configOf(b -> b);
    assertThat(fromSpring.retry().backoff().initial()).isEqualTo(Duration.ofSeconds(2));
    assertThat(fromSpring.retry().backoff().max()).isEqualTo(fromJava.retry().backoff().max());
    assertThat(fromSpring.retry().maxAttempts()).isEqualTo(fromJava.retry().maxAttempts());
    assertThat(fromSpring.workers()).isEqualTo(fromJava.workers());
  }

  @Test
  void anOrderedConsumerFromPropertiesIsTheOneFromAnOrderedBuilder() {
    OnceProperties.Consumer c = new OnceProperties.Consumer();
    c.setOrdered(true);

    assertThat(configOf(c::applyTo)).isEqualTo(configOf(ConsumerBuilder::ordered));
    assertThat(configOf(c::applyTo).ordered()).isTrue();
  }

  @Test
  void theRelayAndPartitionsFromEmptyPropertiesAreTheOnesFromAnEmptyBuilder() {
    try (TestDatabase db = TestDatabase.embedded();
        TableQueueTransport transport = TableQueueTransport.builder(db.dataSource()).build()) {
      OnceConfig fromJava =
          relayOf(Once.builder().dataSource(db.dataSource()).transport(transport));
      OnceConfig fromSpring =
          relayOf(
              new OnceProperties()
                  .applyTo(Once.builder().dataSource(db.dataSource()).transport(transport)));

      assertThat(fromSpring).isEqualTo(fromJava);
    }
  }

  @Test
  void theTransportsFromEmptyPropertiesAreTheOnesFromEmptyBuilders() {
    assertThat(
            OnceRabbitAutoConfiguration.builder(new OnceProperties.Rabbitmq())
                .uri("amqp://localhost")
                .config())
        .isEqualTo(RabbitTransport.builder().uri("amqp://localhost").config());
    assertThat(
            OnceKafkaAutoConfiguration.builder(new OnceProperties.Kafka())
                .bootstrapServers("localhost:9092")
                .settings())
        .isEqualTo(KafkaTransport.builder().bootstrapServers("localhost:9092").settings());
  }

  @Test
  void theIdempotencySettingsFromEmptyPropertiesAreOnceWebsDefaults() {
    // the scope is once.http.scope's, set by the filter's bean; ClientScope has no equals
    assertThat(OnceHttpAutoConfiguration.settings(new OnceHttpProperties()).build())
        .usingRecursiveComparison()
        .ignoringFields("scope")
        .isEqualTo(IdempotencySettings.DEFAULT);
  }

  private static OnceConfig relayOf(dev.once.OnceBuilder builder) {
    try (Once once = builder.build()) {
      return once.config();
    }
  }

  /**
   * The {@link ConsumerConfig} a {@link ConsumerBuilder} validates and hands to {@link
   * Once#consumer(ConsumerConfig)}: caught there by an {@link Once} that records it.
   */
  private static ConsumerConfig configOf(
      java.util.function.UnaryOperator<ConsumerBuilder> settings) {
    AtomicReference<ConsumerConfig> built = new AtomicReference<>();
    InvocationHandler h =
        (proxy, method, args) -> {
          if (method.isDefault()) {
            return InvocationHandler.invokeDefault(proxy, method, args);
          }
          if (method.getName().equals("consumer") && args[0] instanceof ConsumerConfig c) {
            built.set(c);
            return null;
          }
          throw new UnsupportedOperationException(method.getName());
        };
    Once once =
        (Once) Proxy.newProxyInstance(Once.class.getClassLoader(), new Class<?>[] {Once.class}, h);
    settings.apply(once.consumer("shipping").subscribe("orders", HANDLER)).build();
    return built.get();
  }
}
