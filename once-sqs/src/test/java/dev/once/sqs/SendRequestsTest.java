package dev.once.sqs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.once.Event;
import dev.once.EventId;
import dev.once.spi.PublishResult;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.sqs.SqsAsyncClient;

/**
 * What the relay's path costs in requests: a batch of events with distinct keys goes to a group
 * queue in full {@code SendMessageBatch} calls of 10, however its keys hash (lanes chosen by a
 * key's hash left most calls part-full: 0.12 calls per event in {@code once bench e2e} where C made
 * 0.10).
 */
class SendRequestsTest {

  @ParameterizedTest(name = "{0} events with distinct keys -> {1} SendMessageBatch calls")
  @CsvSource({"25, 3", "80, 8", "200, 20"})
  void aBatchGoesInFullCallsOfTen(int events, int calls) {
    AtomicInteger sends = new AtomicInteger();
    String dest = "sends-" + System.nanoTime();
    // a client of its own without the shared one's 5-second call timeout: on a loaded machine a
    // call that took longer would be a loss, sent again, and counted twice
    try (SqsAsyncClient client =
            SqsAsyncClient.builder()
                .endpointOverride(Sqs.endpoint())
                .region(Region.US_EAST_1)
                .credentialsProvider(
                    StaticCredentialsProvider.create(AwsBasicCredentials.create("x", "x")))
                .build();
        SqsTransport transport =
            Sqs.transport()
                .client(counting(client, sends))
                .requestTimeout(Duration.ofSeconds(120))
                .build()) {
      transport.declare(dest, "g");
      List<Event> batch = new ArrayList<>();
      for (int i = 0; i < events; i++) {
        batch.add(
            new Event(
                new EventId(dest + "-" + i),
                dest,
                "order-" + (i * 7919),
                "Paid",
                ("{\"n\":" + i + "}").getBytes(StandardCharsets.UTF_8),
                Map.of()));
      }

      PublishResult result = transport.publish(batch, Duration.ofSeconds(120));

      assertThat(result.confirmed().cardinality()).as("events confirmed").isEqualTo(events);
      assertThat(sends.get()).as("SendMessageBatch calls").isEqualTo(calls);
      assertThat(transport.depth(dest, "g")).hasValue(events);
    }
  }

  /** {@code real}, counting its SendMessageBatch calls into {@code sends}. */
  static SqsAsyncClient counting(SqsAsyncClient real, AtomicInteger sends) {
    return (SqsAsyncClient)
        Proxy.newProxyInstance(
            SqsAsyncClient.class.getClassLoader(),
            new Class<?>[] {SqsAsyncClient.class},
            (proxy, method, args) -> {
              if (method.getName().equals("sendMessageBatch")) {
                sends.incrementAndGet();
              }
              try {
                return method.invoke(real, args);
              } catch (InvocationTargetException e) {
                throw e.getCause();
              }
            });
  }
}
