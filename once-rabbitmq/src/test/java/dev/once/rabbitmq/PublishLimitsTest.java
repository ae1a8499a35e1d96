package dev.once.rabbitmq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.once.ConfigurationException;
import dev.once.Event;
import dev.once.EventId;
import dev.once.InvalidEventException;
import dev.once.Once;
import dev.once.RetryPolicy;
import dev.once.test.TestDatabase;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * What RabbitMQ cannot carry is refused by {@code tx.publish}, naming the field, before an outbox
 * row exists; a consumer that could never dead-letter a process-killing poison before the broker
 * does is refused at build. Neither needs a broker: the transport connects at first use.
 */
class PublishLimitsTest {

  @Test
  void anIdOver255BytesInUtf8IsRefusedAtPublishNamingTheField() {
    try (TestDatabase db = TestDatabase.embedded();
        RabbitTransport transport = RabbitTransport.create("amqp://guest:guest@127.0.0.1:1/");
        Once once =
            Once.builder()
                .dataSource(db.dataSource())
                .transport(transport)
                .destinations("orders")
                .build()) {
      String id = "é".repeat(150); // 150 characters, 300 bytes
      assertThatThrownBy(
              () ->
                  once.useTransaction(
                      tx -> tx.publish(Event.of(new EventId(id), "orders", "k", "T", "{}"))))
          .isInstanceOf(InvalidEventException.class)
          .hasMessage(
              "event.id is 300 bytes in UTF-8; RabbitMQ carries it in a short string of at most"
                  + " 255 bytes");
      assertThatThrownBy(
              () ->
                  once.useTransaction(
                      tx ->
                          tx.publish(
                              Event.of(EventId.of("e", 1), "orders", "k", "ü".repeat(130), "{}"))))
          .isInstanceOf(InvalidEventException.class)
          .hasMessageStartingWith("event.type is 260 bytes");
      assertThatThrownBy(
              () ->
                  once.useTransaction(
                      tx ->
                          tx.publish(
                              new Event(
                                  EventId.of("e", 2),
                                  "orders",
                                  "k",
                                  "T",
                                  new byte[0],
                                  Map.of("h".repeat(256), "v")))))
          .isInstanceOf(InvalidEventException.class)
          .hasMessageStartingWith("event.headers name is 256 bytes");
      assertThat(db.count("SELECT count(*) FROM once_outbox")).isZero();
    }
  }

  @Test
  void aDeliveryLimitBelowWhatAPoisonNeedsIsAConfigurationErrorAtBuild() {
    try (TestDatabase db = TestDatabase.embedded();
        RabbitTransport transport =
            RabbitTransport.builder()
                .uri("amqp://guest:guest@127.0.0.1:1/")
                .deliveryLimit(5)
                .build();
        Once once =
            Once.builder()
                .dataSource(db.dataSource())
                .transport(transport)
                .destinations("orders")
                .build()) {
      assertThatThrownBy(
              () ->
                  once.consumer("warehouse")
                      .subscribe("orders", (tx, e) -> {})
                      .retry(RetryPolicy.builder().maxAttempts(5).build())
                      .build())
          .isInstanceOf(ConfigurationException.class)
          .hasMessageStartingWith(
              "consumer.retry.maxAttempts is 5 for consumer 'warehouse' with batchSize 32: a"
                  + " message that kills the process may be delivered 12 times before Once"
                  + " dead-letters it (maxAttempts + log2(batchSize) + 2), more than the rabbitmq"
                  + " delivery limit 5 allows");
    }
  }
}
