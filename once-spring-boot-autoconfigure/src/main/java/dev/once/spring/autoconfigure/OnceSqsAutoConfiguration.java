package dev.once.spring.autoconfigure;

import dev.once.spi.Transport;
import dev.once.sqs.SqsTransport;
import java.net.URI;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import software.amazon.awssdk.services.sqs.SqsAsyncClient;

/**
 * {@code once.transport=sqs}: Once's Amazon SQS transport (module once-sqs). It uses the
 * application's {@link SqsAsyncClient} bean when there is one (Spring Cloud AWS makes one), and
 * does not close it; otherwise it makes its own from {@code once.sqs.endpoint}, {@code
 * once.sqs.region} and the AWS SDK's default chain.
 */
@AutoConfiguration(before = OnceAutoConfiguration.class)
@ConditionalOnClass(SqsTransport.class)
@ConditionalOnProperty(prefix = "once", name = "transport", havingValue = "sqs")
public class OnceSqsAutoConfiguration {

  @Bean(destroyMethod = "close")
  @ConditionalOnMissingBean(Transport.class)
  public SqsTransport onceSqsTransport(
      OnceProperties properties, ObjectProvider<SqsAsyncClient> client) {
    SqsTransport.Builder b = builder(properties.getSqs());
    client.ifAvailable(b::client);
    return b.build();
  }

  /** The transport's settings from {@code once.sqs.*} (checked at binding, too). */
  static SqsTransport.Builder builder(OnceProperties.Sqs s) {
    SqsTransport.Builder b =
        SqsTransport.builder()
            .namePrefix(s.getNamePrefix())
            .fifo(s.isFifo())
            .visibilityTimeout(s.getVisibilityTimeout());
    if (s.getEndpoint() != null && !s.getEndpoint().isBlank()) {
      b.endpoint(URI.create(s.getEndpoint()));
    }
    if (s.getRegion() != null && !s.getRegion().isBlank()) {
      b.region(s.getRegion());
    }
    return b;
  }
}
