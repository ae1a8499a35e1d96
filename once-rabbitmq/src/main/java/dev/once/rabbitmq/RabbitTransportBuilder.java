package dev.once.rabbitmq;

import dev.once.ConfigurationException;
import dev.once.spi.Validate;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.Clock;
import java.time.Duration;

/** Settings of a {@link RabbitTransport}; {@link #build()} validates them and names the bad one. */
public final class RabbitTransportBuilder {
  /**
   * The {@code x-delivery-limit} of the queues Once declares unless told otherwise: 1 000. It is a
   * backstop, far above what Once itself needs. Once dead-letters a message that kills its process
   * by its delivery {@code maxAttempts + log2(batchSize) + 2} (17 with the consumer defaults) and
   * does not charge a delivery for the returns it did not cause, but the quorum queue counts every
   * return: a crash of a worker returns its whole batch and prefetch window, so an innocent held
   * through 20 crashes was dead-lettered by the broker on the former default of 20 (once bench
   * faults on RabbitMQ did not drain at crash rate 0.2). 1 000 returns of one message is a loop
   * Once cannot see (a process that dies before it can record anything), and the broker then ends
   * it.
   */
  public static final int DEFAULT_DELIVERY_LIMIT = 1_000;

  private String uri = "amqp://guest:guest@127.0.0.1:5672/";
  private String namePrefix = "";
  private int prefetch = 64;
  private int deliveryLimit = DEFAULT_DELIVERY_LIMIT;
  private boolean singleActiveConsumer;
  private int publisherChannels = 4;
  private String contentType = "application/octet-stream";
  private Duration maxNackDelay = Duration.ofSeconds(30);
  private Duration connectionTimeout = Duration.ofSeconds(5);
  private Duration recoveryInitialDelay = Duration.ofMillis(500);
  private Duration recoveryMaxDelay = Duration.ofSeconds(15);
  private Clock clock = Clock.systemUTC();

  RabbitTransportBuilder() {}

  /** The broker, {@code amqp://user:password@host:port/vhost}. Default the local guest. */
  public RabbitTransportBuilder uri(String uri) {
    this.uri = uri;
    return this;
  }

  /**
   * The clock a receiver reads the gaps between deliveries and its worker's batch times on, to
   * decide whether a poll lingers ({@code ConsumerBuilder.batchLinger}). Default the system clock;
   * a test moves a {@code SettableClock} instead of sleeping through a quiet spell.
   */
  public RabbitTransportBuilder clock(Clock clock) {
    this.clock = clock;
    return this;
  }

  /** Put before every exchange and queue name, e.g. {@code shop.}. Default none. */
  public RabbitTransportBuilder namePrefix(String namePrefix) {
    this.namePrefix = namePrefix;
    return this;
  }

  /** Unacknowledged deliveries one receiver may hold (basic.qos). Default 64. */
  public RabbitTransportBuilder prefetch(int prefetch) {
    this.prefetch = prefetch;
    return this;
  }

  /**
   * Deliveries of one message after which the quorum queue dead-letters it (x-delivery-limit).
   * Every return counts, also those Once does not charge: a crash of a worker holding it (its whole
   * batch and prefetch window go back), a cut connection. Default {@value #DEFAULT_DELIVERY_LIMIT};
   * a consumer whose bound comes close to it logs a WARN (see {@code Once.consumer}).
   */
  public RabbitTransportBuilder deliveryLimit(int deliveryLimit) {
    this.deliveryLimit = deliveryLimit;
    return this;
  }

  /**
   * Per-key order: only one receiver of each consumer group gets deliveries at a time; the others
   * stand by and take over when it goes away. Costs the parallelism of the group. Default off.
   */
  public RabbitTransportBuilder singleActiveConsumer(boolean singleActiveConsumer) {
    this.singleActiveConsumer = singleActiveConsumer;
    return this;
  }

  /** Confirm channels kept for publishing. Default 4. */
  public RabbitTransportBuilder publisherChannels(int publisherChannels) {
    this.publisherChannels = publisherChannels;
    return this;
  }

  /** Content type of events without a {@code content-type} header. */
  public RabbitTransportBuilder contentType(String contentType) {
    this.contentType = contentType;
    return this;
  }

  /** The longest a nacked delivery is held back before it returns to the queue. Default 30 s. */
  public RabbitTransportBuilder maxNackDelay(Duration maxNackDelay) {
    this.maxNackDelay = maxNackDelay;
    return this;
  }

  public RabbitTransportBuilder connectionTimeout(Duration connectionTimeout) {
    this.connectionTimeout = connectionTimeout;
    return this;
  }

  /** Reconnection waits start at {@code initial} and double up to {@code max}. */
  public RabbitTransportBuilder recoveryBackoff(Duration initial, Duration max) {
    this.recoveryInitialDelay = initial;
    this.recoveryMaxDelay = max;
    return this;
  }

  /** Validates the settings. Does not connect: the first use does, and recovers from then on. */
  public RabbitTransport build() {
    Validate.notNull("rabbitmq.clock", clock);
    return new RabbitTransport(config(), clock);
  }

  /**
   * The validated settings, without a transport: for a framework that checks its configuration
   * before it starts anything.
   *
   * @throws dev.once.ConfigurationException naming the first bad setting
   */
  public RabbitConfig config() {
    return new RabbitConfig(
        parseUri(),
        prefix(),
        Validate.range("rabbitmq.prefetch", prefetch, 1, 65_535),
        Validate.range("rabbitmq.deliveryLimit", deliveryLimit, 1, 1_000_000),
        singleActiveConsumer,
        Validate.range("rabbitmq.publisherChannels", publisherChannels, 1, 64),
        Validate.notBlank("rabbitmq.contentType", contentType),
        Validate.positive("rabbitmq.maxNackDelay", maxNackDelay),
        Validate.positive("rabbitmq.connectionTimeout", connectionTimeout),
        Validate.positive("rabbitmq.recoveryInitialDelay", recoveryInitialDelay),
        Validate.atLeast(
            "rabbitmq.recoveryMaxDelay",
            recoveryMaxDelay,
            "rabbitmq.recoveryInitialDelay",
            recoveryInitialDelay));
  }

  /**
   * The URI without its user information (up to the last {@code @}: a password may hold a {@code /}
   * its user forgot to escape), for messages: a password never reaches a log.
   */
  static String redacted(String uri) {
    return uri.replaceAll("^([A-Za-z][A-Za-z0-9+.-]*://).*@", "$1***@");
  }

  private URI parseUri() {
    Validate.notBlank("rabbitmq.uri", uri);
    try {
      URI parsed = new URI(uri);
      if (!"amqp".equals(parsed.getScheme()) && !"amqps".equals(parsed.getScheme())) {
        throw new ConfigurationException(
            "rabbitmq.uri", "must start with amqp:// or amqps://, was '" + redacted(uri) + "'");
      }
      if (parsed.getHost() == null) {
        throw new ConfigurationException(
            "rabbitmq.uri",
            "has no host: '"
                + redacted(uri)
                + "' (a '/', '@', ':', '?' or '#' in the user or password must be %-escaped)");
      }
      if (parsed.getPort() == 0 || parsed.getPort() > 65_535) {
        throw new ConfigurationException(
            "rabbitmq.uri",
            "port must be between 1 and 65535, was "
                + parsed.getPort()
                + " in '"
                + redacted(uri)
                + "'");
      }
      return parsed;
    } catch (URISyntaxException e) {
      throw new ConfigurationException(
          "rabbitmq.uri",
          "is not a URI ('" + redacted(uri) + "'): " + e.getReason() + " at index " + e.getIndex());
    }
  }

  private String prefix() {
    if (namePrefix == null || !namePrefix.matches("[A-Za-z0-9._-]{0,50}")) {
      throw new ConfigurationException(
          "rabbitmq.namePrefix",
          "must be 0 to 50 letters, digits, '.', '_' or '-', was '" + namePrefix + "'");
    }
    if (namePrefix.startsWith("amq.")) {
      throw new ConfigurationException(
          "rabbitmq.namePrefix", "must not start with 'amq.' (reserved by RabbitMQ)");
    }
    return namePrefix;
  }
}
