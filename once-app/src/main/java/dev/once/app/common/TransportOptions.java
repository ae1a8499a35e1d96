package dev.once.app.common;

import dev.once.kafka.KafkaTransport;
import dev.once.rabbitmq.RabbitTransport;
import dev.once.spi.Transport;
import dev.once.sqs.SqsTransport;
import dev.once.tablequeue.TableQueueTransport;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code --transport} and its settings, shared by the commands that move events. */
public final class TransportOptions {

  @Option(
      names = "--transport",
      defaultValue = "table",
      description =
          "table (a queue in the same PostgreSQL; default), rabbitmq, kafka (without"
              + " --bootstrap: an embedded broker, data in .once/kafka), sqs or sqs-fifo (Amazon"
              + " SQS standard or FIFO queues; without --sqs-endpoint: ElasticMQ in this"
              + " process).")
  String transport;

  @Mixin SqsOptions sqs = new SqsOptions();

  /**
   * The environment variable read when {@code --amqp} is absent: a URI with a password given there
   * stays out of the process list ({@code ps}) and the shell's history.
   */
  public static final String AMQP_ENV = "ONCE_AMQP_URI";

  static final String DEFAULT_AMQP = "amqp://guest:guest@127.0.0.1:5672/";

  @Option(
      names = "--amqp",
      description =
          "RabbitMQ URI for --transport rabbitmq. Default: $ONCE_AMQP_URI, else "
              + DEFAULT_AMQP
              + " (put a URI with a password in ONCE_AMQP_URI: a command line is visible to"
              + " every user in ps).")
  String amqp;

  @Option(
      names = "--bootstrap",
      description =
          "Kafka bootstrap servers (host:port[,host:port]) for --transport kafka. Default: an"
              + " embedded single-node broker in this process, data in .once/kafka.")
  String bootstrap;

  public String name() {
    return transport;
  }

  /** These options as command-line arguments, for a child process: nothing secret. */
  public List<String> args() {
    if (transport.equals("kafka")) { // children use this process's broker, embedded or not
      return List.of("--transport", transport, "--bootstrap", bootstrap());
    }
    if (transport.startsWith("sqs")) { // children use this process's SQS server, embedded or not
      return List.of("--transport", transport, "--sqs-endpoint", sqs.endpoint());
    }
    return List.of("--transport", transport);
  }

  /** What a child process gets in its environment: the RabbitMQ URI, which may hold a password. */
  public Map<String, String> env() {
    return Map.of(AMQP_ENV, amqp());
  }

  /** The Kafka cluster: {@code --bootstrap}, or the embedded broker (started on first use). */
  public String bootstrap() {
    if (bootstrap == null) {
      return KafkaBroker.embedded();
    }
    for (String server : bootstrap.split(",", -1)) {
      if (!hostAndPort(server.trim())) {
        throw new UserError(
            "--bootstrap must be host:port[,host:port] (port 1-65535), was '" + bootstrap + "'");
      }
    }
    return bootstrap;
  }

  private static boolean hostAndPort(String server) {
    int colon = server.lastIndexOf(':');
    if (colon <= 0 || colon == server.length() - 1) {
      return false;
    }
    String host = server.substring(0, colon);
    if (host.isBlank() || host.chars().anyMatch(Character::isWhitespace)) {
      return false;
    }
    try {
      int port = Integer.parseInt(server.substring(colon + 1));
      return port >= 1 && port <= 65_535;
    } catch (NumberFormatException e) {
      return false;
    }
  }

  /** The RabbitMQ URI: {@code --amqp}, else {@code $ONCE_AMQP_URI}, else the local default. */
  public String amqp() {
    if (amqp != null) {
      return amqp;
    }
    String env = System.getenv(AMQP_ENV);
    return env == null || env.isBlank() ? DEFAULT_AMQP : env.strip();
  }

  /**
   * The RabbitMQ URI, checked as the transport checks it (scheme, host, port; errors name it
   * without its password), for code that connects with the AMQP client itself (the bench).
   */
  public String checkedAmqp() {
    try (RabbitTransport checked = RabbitTransport.builder().uri(amqp()).build()) {
      return amqp(); // build() validates and does not connect
    }
  }

  /**
   * Whether the chosen transport's broker dead-letters messages on its own (RabbitMQ: {@code
   * <queue>.dead-letter}; SQS: the dead-letter queue of a group queue's redrive policy, where it
   * has one); the table queue and Kafka do not. Refuses an unknown {@code --transport}.
   */
  public boolean keepsBrokerDeadLetters() {
    return switch (transport) {
      case "rabbitmq", "sqs", "sqs-fifo" -> true;
      case "table", "kafka" -> false;
      default -> throw unknown();
    };
  }

  /** Refuses an unknown {@code --transport} before anything is opened. */
  public void check() {
    keepsBrokerDeadLetters();
  }

  /**
   * Refuses a {@code --transport} that cannot keep a key's order, naming the one to use instead: a
   * standard SQS queue hands a key's messages to competing receivers in no order.
   */
  public void checkKeepsKeyOrder(String flag) {
    check();
    if (transport.equals("sqs")) {
      throw new UserError(
          flag
              + " needs a transport that keeps a key's order ('table', 'rabbitmq', 'kafka' or"
              + " 'sqs-fifo'); a standard SQS queue (--transport sqs) does not: use --transport"
              + " sqs-fifo");
    }
  }

  private UserError unknown() {
    return new UserError(
        "--transport must be 'table', 'rabbitmq', 'kafka', 'sqs' or 'sqs-fifo', was '"
            + transport
            + "'");
  }

  /**
   * Opens the chosen transport. {@code visibilityTimeout} is how long a crashed worker's deliveries
   * stay invisible on the table queue.
   */
  public Transport open(DataSource dataSource, Duration visibilityTimeout) {
    return switch (transport) {
      case "table" ->
          TableQueueTransport.builder(dataSource).visibilityTimeout(visibilityTimeout).build();
      case "rabbitmq" -> rabbitmq();
      case "kafka" -> kafka();
      case "sqs" -> sqs.open(false, visibilityTimeout);
      case "sqs-fifo" -> sqs.open(true, visibilityTimeout);
      default -> throw unknown();
    };
  }

  /** How an SQS transport is built here: endpoint, region and credentials of {@code --sqs-*}. */
  public SqsTransport.Builder sqsBuilder() {
    return sqs.builder();
  }

  /**
   * The demo crashes workers on purpose, often: every crash returns the worker's unacknowledged
   * deliveries and counts against the quorum queue's delivery limit. A generous limit and a
   * prefetch of one batch keep crash injection from dead-lettering (and so losing) an event.
   */
  private Transport kafka() {
    return KafkaTransport.builder()
        .bootstrapServers(bootstrap())
        .sessionTimeout(Duration.ofSeconds(10)) // a killed worker's partitions move on sooner
        .revokeTimeout(Duration.ofSeconds(5))
        .build();
  }

  private Transport rabbitmq() {
    return RabbitTransport.builder().uri(amqp()).prefetch(32).deliveryLimit(10_000).build();
  }
}
