package dev.once.kafka;

import dev.once.kafka.embedded.EmbeddedKafka;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The one in-process Kafka broker of this test JVM (KRaft, single node), started on first use and
 * shared by every test class; tests keep apart by unique topic and group names.
 */
final class Broker {
  private static EmbeddedKafka kafka;

  private Broker() {}

  static synchronized EmbeddedKafka kafka() {
    if (kafka == null) {
      try {
        Path dir = Files.createTempDirectory("once-kafka-test");
        kafka = EmbeddedKafka.in(dir).start();
      } catch (IOException e) {
        throw new IllegalStateException(e);
      }
      Runtime.getRuntime().addShutdownHook(new Thread(kafka::stop));
    }
    return kafka;
  }

  static String bootstrap() {
    return kafka().bootstrapServers();
  }

  /** A transport with test-friendly timings: short session timeout, fast commits. */
  static KafkaTransport.Builder transport() {
    return KafkaTransport.builder()
        .bootstrapServers(bootstrap())
        .partitions(4)
        .revokeTimeout(java.time.Duration.ofSeconds(5))
        .sessionTimeout(java.time.Duration.ofSeconds(10))
        .commitInterval(java.time.Duration.ofMillis(100));
  }
}
