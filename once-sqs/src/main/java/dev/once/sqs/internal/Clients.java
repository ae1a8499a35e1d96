package dev.once.sqs.internal;

import dev.once.sqs.SqsSettings;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.http.nio.netty.NettyNioAsyncHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.sqs.SqsAsyncClient;
import software.amazon.awssdk.services.sqs.SqsAsyncClientBuilder;

/** The SDK client a transport makes for itself when it is given none. */
public final class Clients {
  private Clients() {}

  /**
   * A client for {@code settings}' endpoint and region (the SDK's default chain where unset), with
   * {@code credentials} (null: the default chain).
   */
  public static SqsAsyncClient create(SqsSettings settings, AwsCredentialsProvider credentials) {
    SqsAsyncClientBuilder b =
        SqsAsyncClient.builder()
            .httpClientBuilder(
                NettyNioAsyncHttpClient.builder()
                    .maxConcurrency(512)
                    // a worker's first call on a busy machine waited over the default 10 s
                    .connectionAcquisitionTimeout(settings.requestTimeout()));
    if (settings.endpoint() != null) {
      b.endpointOverride(settings.endpoint());
    }
    if (settings.region() != null) {
      b.region(Region.of(settings.region()));
    }
    if (credentials != null) {
      b.credentialsProvider(credentials);
    }
    return b.build();
  }
}
