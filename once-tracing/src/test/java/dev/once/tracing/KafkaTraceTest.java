package dev.once.tracing;

import dev.once.kafka.KafkaTransport;
import dev.once.kafka.embedded.EmbeddedKafka;
import dev.once.spi.Transport;
import java.nio.file.Files;
import java.time.Duration;
import javax.sql.DataSource;

/** The trace on Kafka: one in-process broker for this test JVM, started on first use. */
class KafkaTraceTest extends TracePipelineContract {
  private static EmbeddedKafka kafka;

  private static synchronized EmbeddedKafka kafka() throws Exception {
    if (kafka == null) {
      kafka = EmbeddedKafka.in(Files.createTempDirectory("once-tracing-kafka")).start();
      Runtime.getRuntime().addShutdownHook(new Thread(kafka::stop));
    }
    return kafka;
  }

  @Override
  Transport transport(DataSource ds) throws Exception {
    return KafkaTransport.builder()
        .bootstrapServers(kafka().bootstrapServers())
        .partitions(2)
        .revokeTimeout(Duration.ofSeconds(5))
        .sessionTimeout(Duration.ofSeconds(10))
        .commitInterval(Duration.ofMillis(100))
        .build();
  }
}
