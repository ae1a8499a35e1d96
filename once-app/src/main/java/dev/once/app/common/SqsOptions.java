package dev.once.app.common;

import dev.once.spi.Transport;
import dev.once.sqs.SqsTransport;
import java.net.URI;
import java.time.Duration;
import java.util.Set;
import picocli.CommandLine.Option;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;

/** {@code --sqs-endpoint}: where {@code --transport sqs} and {@code sqs-fifo} find SQS. */
public final class SqsOptions {
  private static final Set<String> LOCAL = Set.of("127.0.0.1", "localhost", "[::1]");

  @Option(
      names = "--sqs-endpoint",
      description =
          "SQS endpoint for --transport sqs or sqs-fifo: 'aws' for AWS itself (region and"
              + " credentials from the SDK's default chain: AWS_REGION, AWS_PROFILE, ...), or the"
              + " URL of an SQS-compatible server; one on this machine over http (ElasticMQ,"
              + " LocalStack) gets dummy credentials and us-east-1. Default: ElasticMQ in this"
              + " process, queues in memory.")
  String endpoint;

  /** The endpoint as children get it: this process's embedded server once started. */
  String endpoint() {
    return endpoint == null ? SqsServer.embedded().toString() : endpoint;
  }

  /**
   * The transport, on FIFO queues or standard ones. A killed worker's messages come back after
   * {@code visibilityTimeout}.
   */
  Transport open(boolean fifo, Duration visibilityTimeout) {
    return builder()
        .fifo(fifo)
        .visibilityTimeout(
            visibilityTimeout.compareTo(Duration.ofSeconds(1)) < 0
                ? Duration.ofSeconds(1)
                : visibilityTimeout)
        .build();
  }

  /** A transport's builder with this endpoint, its region and credentials set. */
  SqsTransport.Builder builder() {
    SqsTransport.Builder b = SqsTransport.builder();
    String e = endpoint();
    if (e.equals("aws")) {
      return b;
    }
    URI uri;
    try {
      uri = URI.create(e);
    } catch (IllegalArgumentException bad) {
      throw new UserError("--sqs-endpoint must be 'aws' or a URL, was '" + e + "'");
    }
    if (uri.getHost() == null
        || !(uri.getScheme().equals("http") || uri.getScheme().equals("https"))) {
      throw new UserError("--sqs-endpoint must be 'aws' or an http(s) URL, was '" + e + "'");
    }
    b.endpoint(uri);
    if (uri.getScheme().equals("http") && LOCAL.contains(uri.getHost())) {
      b.region("us-east-1")
          .credentials(StaticCredentialsProvider.create(AwsBasicCredentials.create("x", "x")));
    }
    return b;
  }
}
