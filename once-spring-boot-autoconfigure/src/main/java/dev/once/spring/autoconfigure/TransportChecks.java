package dev.once.spring.autoconfigure;

import java.util.Map;

/**
 * The transport modules' own checks of {@code once.rabbitmq.*} and {@code once.kafka.*}, without a
 * transport. Kept apart so that neither module is loaded unless it is on the classpath.
 */
final class TransportChecks {
  private TransportChecks() {}

  static final Map<String, String> RABBITMQ =
      Map.of(
          "rabbitmq.namePrefix", "namePrefix",
          "rabbitmq.prefetch", "prefetch",
          "rabbitmq.deliveryLimit", "deliveryLimit");

  static final Map<String, String> KAFKA =
      Map.of("kafka.namePrefix", "namePrefix", "kafka.partitions", "partitions");

  static void rabbitmq(OnceProperties.Rabbitmq r) {
    OnceRabbitAutoConfiguration.builder(r).uri("amqp://localhost").config();
  }

  static void kafka(OnceProperties.Kafka k) {
    OnceKafkaAutoConfiguration.builder(k).bootstrapServers("localhost:9092").settings();
  }
}
