package dev.once.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.once.spi.Transport;
import dev.once.sqs.SqsTransport;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Configuration;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.sqs.SqsAsyncClient;

/** {@code once.transport=sqs}: the transport takes the application's SDK client when it has one. */
class OnceSqsAutoConfigurationTest {

  @Configuration(proxyBeanMethods = false)
  @EnableConfigurationProperties(OnceProperties.class)
  static class Properties {}

  private static ApplicationContextRunner runner() {
    return new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(OnceSqsAutoConfiguration.class))
        .withUserConfiguration(Properties.class)
        .withPropertyValues("once.transport=sqs");
  }

  private static SqsAsyncClient client() {
    return SqsAsyncClient.builder()
        .region(Region.EU_WEST_1)
        .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("a", "b")))
        .build();
  }

  @Test
  void theApplicationsSqsClientIsUsed() {
    SqsAsyncClient client = client();
    runner()
        .withBean(SqsAsyncClient.class, () -> client)
        .withPropertyValues("once.sqs.fifo=true", "once.sqs.visibility-timeout=45s")
        .run(
            ctx -> {
              SqsTransport t = (SqsTransport) ctx.getBean(Transport.class);
              assertThat(t.client()).isSameAs(client);
              assertThat(t.settings().fifo()).isTrue();
              assertThat(t.settings().visibilityTimeout()).isEqualTo(Duration.ofSeconds(45));
            });
    client.close();
  }

  @Test
  void withoutAClientBeanTheTransportMakesItsOwnFromTheProperties() {
    runner()
        .withPropertyValues(
            "once.sqs.endpoint=http://127.0.0.1:9324",
            "once.sqs.region=us-east-1",
            "once.sqs.name-prefix=shop-")
        .run(
            ctx -> {
              SqsTransport t = (SqsTransport) ctx.getBean(Transport.class);
              assertThat(t.settings().endpoint()).hasToString("http://127.0.0.1:9324");
              assertThat(t.settings().namePrefix()).isEqualTo("shop-");
            });
  }

  @Test
  void otherTransportsLeaveItOut() {
    runner()
        .withPropertyValues("once.transport=kafka")
        .run(ctx -> assertThat(ctx).doesNotHaveBean(SqsTransport.class));
  }
}
