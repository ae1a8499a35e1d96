package dev.once.sqs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.once.spi.Receiver;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.client.config.SdkAdvancedAsyncClientOption;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.sqs.SqsAsyncClient;
import software.amazon.awssdk.services.sqs.model.Message;

/**
 * A receiver closed while its long polls are under way (a worker that crashed) gives back what they
 * bring when they end, without holding the SDK thread that completes them: a wait there for its own
 * return call stalled every call of the client — the relay's sends too — for the request timeout.
 * Here the client completes its calls on one thread, so one blocked completion is a stall.
 */
class ClosedReceiverTest {

  @Test
  void whatAClosedReceiversLongPollBringsIsGivenBackWithoutStallingTheClient() throws Exception {
    ExecutorService oneThread = Executors.newSingleThreadExecutor();
    SqsAsyncClient client =
        SqsAsyncClient.builder()
            .endpointOverride(Sqs.endpoint())
            .region(Region.US_EAST_1)
            .credentialsProvider(
                StaticCredentialsProvider.create(AwsBasicCredentials.create("x", "x")))
            .asyncConfiguration(
                b ->
                    b.advancedOption(
                        SdkAdvancedAsyncClientOption.FUTURE_COMPLETION_EXECUTOR, oneThread))
            .build();
    String dest = "closed-" + System.nanoTime();
    try (SqsTransport transport =
        Sqs.transport()
            .client(client)
            .receiveWait(Duration.ofSeconds(10))
            .requestTimeout(Duration.ofSeconds(20))
            .build()) {
      transport.declare(dest, "g");
      String url = Sqs.client().getQueueUrl(b -> b.queueName(dest + "__g")).join().queueUrl();
      Receiver receiver = transport.receiver(dest, "g");
      assertThat(receiver.poll(10, Duration.ofMillis(100))).isEmpty(); // its long polls wait
      receiver.close();

      // When: a message arrives for the closed receiver's long poll
      Sqs.client().sendMessage(b -> b.queueUrl(url).messageBody("m")).join();
      // Then: it is given back (visible again: another client receives it)
      Message back = null;
      long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      while (back == null) {
        assertThat(System.nanoTime()).as("given back within 30 s").isLessThan(deadline);
        back =
            Sqs.client()
                .receiveMessage(b -> b.queueUrl(url).waitTimeSeconds(1).visibilityTimeout(30))
                .join()
                .messages()
                .stream()
                .findFirst()
                .orElse(null);
      }
      // And: the client still answers at once, not after the request timeout (20 s)
      long start = System.nanoTime();
      assertThat(transport.depth(dest, "g")).isPresent();
      long millis = (System.nanoTime() - start) / 1_000_000;
      assertThat(millis).as("an admin call after the return, ms").isLessThan(10_000);
    } finally {
      client.close();
      oneThread.shutdownNow();
    }
  }
}
