package dev.once.spring.autoconfigure;

import dev.once.kafka.KafkaTransport;
import dev.once.spi.Transport;
import java.util.List;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;

/**
 * {@code once.transport=kafka}: Once's Kafka transport (module once-kafka), connected to Spring
 * Boot's own {@code spring.kafka.bootstrap-servers} (default {@code localhost:9092}).
 */
@AutoConfiguration(before = OnceAutoConfiguration.class)
@ConditionalOnClass(KafkaTransport.class)
@ConditionalOnProperty(prefix = "once", name = "transport", havingValue = "kafka")
public class OnceKafkaAutoConfiguration {

  @Bean(destroyMethod = "close")
  @ConditionalOnMissingBean(Transport.class)
  public KafkaTransport onceKafkaTransport(Environment env, OnceProperties properties) {
    return builder(properties.getKafka()).bootstrapServers(bootstrapServers(env)).build();
  }

  /** The transport's settings from {@code once.kafka.*} (checked at binding, too). */
  static KafkaTransport.Builder builder(OnceProperties.Kafka k) {
    KafkaTransport.Builder b = KafkaTransport.builder();
    if (k.getNamePrefix() != null) {
      b.namePrefix(k.getNamePrefix());
    }
    if (k.getPartitions() != null) {
      b.partitions(k.getPartitions());
    }
    return b;
  }

  /** {@code spring.kafka.bootstrap-servers}, given as a list or a comma-separated string. */
  static String bootstrapServers(Environment env) {
    return String.join(
        ",",
        Binder.get(env)
            .bind("spring.kafka.bootstrap-servers", Bindable.listOf(String.class))
            .orElse(List.of("localhost:9092")));
  }
}
