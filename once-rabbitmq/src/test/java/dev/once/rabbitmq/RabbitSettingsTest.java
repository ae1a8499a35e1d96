package dev.once.rabbitmq;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.once.ConfigurationException;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The transport's settings fail like Once's own: the path, the value, never a password. */
class RabbitSettingsTest {

  @Test
  void aBadUriIsNamedWithoutItsPassword() {
    assertThatThrownBy(() -> RabbitTransport.builder().uri("http://bob:s3cret@host/").build())
        .isInstanceOf(ConfigurationException.class)
        .hasMessage("rabbitmq.uri must start with amqp:// or amqps://, was 'http://***@host/'");
    assertThatThrownBy(() -> RabbitTransport.builder().uri("amqp://bob:s3cret@ho st/").build())
        .isInstanceOf(ConfigurationException.class)
        .hasMessageStartingWith("rabbitmq.uri is not a URI ('amqp://***@ho st/')")
        .hasMessageNotContaining("s3cret");
  }

  @Test
  void numbersAndDurationsAreNamedWithTheirValue() {
    assertThatThrownBy(() -> RabbitTransport.builder().uri("amqp://localhost").prefetch(0).build())
        .hasMessage("rabbitmq.prefetch must be between 1 and 65535, was 0");
    assertThatThrownBy(
            () ->
                RabbitTransport.builder()
                    .uri("amqp://localhost")
                    .recoveryBackoff(Duration.ofSeconds(2), Duration.ofSeconds(1))
                    .build())
        .hasMessage(
            "rabbitmq.recoveryMaxDelay must be >= rabbitmq.recoveryInitialDelay (PT2S), was PT1S");
  }
}
