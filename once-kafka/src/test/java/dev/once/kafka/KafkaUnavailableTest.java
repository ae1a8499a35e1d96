package dev.once.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.once.BrokerUnavailableException;
import dev.once.OnceException;
import java.io.IOException;
import java.net.ServerSocket;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * A cluster that does not answer is a BrokerUnavailableException naming Kafka and what was asked.
 */
class KafkaUnavailableTest {

  @Test
  void aClusterThatDoesNotAnswerIsABrokerUnavailableExceptionUnderOnceExceptionNamingTheCall()
      throws IOException {
    int nobody;
    try (ServerSocket s = new ServerSocket(0)) {
      nobody = s.getLocalPort(); // closed again: nothing listens there
    }
    try (KafkaTransport t =
        KafkaTransport.builder()
            .bootstrapServers("127.0.0.1:" + nobody)
            .deliveryTimeout(Duration.ofSeconds(2)) // 3 attempts of 2 s
            .build()) {
      assertThatThrownBy(() -> t.declare("orders", "warehouse"))
          .isInstanceOf(OnceException.class)
          .isInstanceOfSatisfying(
              BrokerUnavailableException.class,
              e -> {
                assertThat(e.broker()).isEqualTo("Kafka");
                assertThat(e.problem()).startsWith("create topic orders");
              })
          .hasMessageStartingWith("Kafka create topic orders");
    }
  }
}
