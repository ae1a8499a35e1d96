package dev.once.bench.e2e;

import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import dev.once.kafka.KafkaTransport;
import dev.once.rabbitmq.RabbitTransport;
import dev.once.spi.QueueAdmin;
import dev.once.spi.QueueOrder;
import dev.once.spi.Transport;
import dev.once.sqs.SqsTransport;
import dev.once.tablequeue.TableQueueTransport;
import java.io.IOException;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import javax.sql.DataSource;

/**
 * The database and broker a bench runs on. The caller (once-app's bench command) opens the
 * database, applies Once's schema and checks the broker's address; the bench tables are the bench's
 * own.
 */
public final class BenchEnv implements AutoCloseable {
  static final String RABBIT_PREFIX = "once-bench.";

  /** The transports a bench runs on; {@code bench e2e} and {@code bench} run on Kafka too. */
  public static final java.util.List<String> TRANSPORTS =
      java.util.List.of("table", "rabbitmq", "kafka", "sqs", "sqs-fifo");

  private final DataSource dataSource;
  private final String description;
  private final String transport;
  private final String amqp;
  private final Supplier<String> bootstrap;
  private final BenchSettings settings;
  private final Rollbacks rollbacks = new Rollbacks();
  private String jdbcUrl;
  private Supplier<SqsTransport.Builder> sqs;
  private SqsTransport sqsClientOwner;
  private SqsRequests sqsRequests;

  /** Partitions of the bench's Kafka topics, Once's and the hand-written pipeline's alike. */
  static final int KAFKA_PARTITIONS = 6;

  /**
   * A bench on {@code dataSource} (Once's schema in place; {@code description} names it without a
   * password) over {@code transport}: {@code table}, {@code rabbitmq} at {@code amqp}, or {@code
   * kafka} at the servers {@code bootstrap} gives (asked once, here: it may start an embedded
   * broker).
   */
  public BenchEnv(
      DataSource dataSource,
      String description,
      String transport,
      String amqp,
      Supplier<String> bootstrap,
      BenchSettings settings) {
    if (!TRANSPORTS.contains(transport)) {
      throw new IllegalArgumentException(
          "--transport must be 'table', 'rabbitmq', 'kafka', 'sqs' or 'sqs-fifo', was '"
              + transport
              + "'");
    }
    this.dataSource = dataSource;
    this.description = description;
    this.transport = transport;
    this.amqp = amqp;
    this.settings = settings;
    rollbacks.clear(); // the producers' count is per process: a new bench starts at 0
    this.bootstrap = transport.equals("kafka") ? started(bootstrap) : bootstrap;
  }

  /**
   * Starts the embedded broker (when there is no {@code --bootstrap}) with stdout pointed at
   * stderr: formatting a fresh data folder prints a line on stdout, and with {@code --json} stdout
   * must hold the JSON alone.
   */
  private static Supplier<String> started(Supplier<String> bootstrap) {
    java.io.PrintStream out = System.out;
    System.setOut(System.err);
    try {
      String servers = bootstrap.get();
      return () -> servers;
    } finally {
      System.setOut(out);
    }
  }

  /** The pool size a bench of {@code s} needs: its threads and Once's, with room to spare. */
  public static int poolSize(BenchSettings s) {
    return s.workers() * 3 + s.relays() * 2 + s.latencyProducers() + 16;
  }

  /**
   * The JDBC URL another process connects with (the service path's JVM); it may hold a password, so
   * it is passed in that process's environment, never printed.
   */
  public BenchEnv jdbcUrl(String url) {
    this.jdbcUrl = url;
    return this;
  }

  String jdbcUrl() {
    return jdbcUrl;
  }

  /**
   * How an SQS transport is built for {@code --transport sqs} (endpoint, region, credentials set);
   * Once's transport and ceiling C's client both come from it.
   */
  public BenchEnv sqs(Supplier<SqsTransport.Builder> sqs) {
    this.sqs = sqs;
    return this;
  }

  Supplier<SqsTransport.Builder> sqs() {
    if (sqs == null) {
      throw new IllegalStateException("--transport sqs needs the SQS endpoint, which is unknown");
    }
    return sqs;
  }

  /** Whether the bench runs on SQS, standard or FIFO queues. */
  boolean onSqs() {
    return transport.startsWith("sqs");
  }

  boolean sqsFifo() {
    return transport.equals("sqs-fifo");
  }

  /**
   * The one SQS client of this bench, counting its requests: Once's transports and the ceilings'
   * code all run on it (made with the endpoint, region and credentials of {@link #sqs}).
   */
  synchronized SqsRequests sqsRequests() {
    if (sqsRequests == null) {
      sqsClientOwner = sqs().get().build();
      sqsRequests = new SqsRequests(sqsClientOwner.client());
    }
    return sqsRequests;
  }

  /** A transport builder on the bench's counted client, FIFO queues on {@code sqs-fifo}. */
  SqsTransport.Builder sqsBuilder() {
    return sqs().get().client(sqsRequests().client()).fifo(sqsFifo());
  }

  /** The SQS endpoint ({@code null}: AWS's). */
  java.net.URI sqsEndpoint() {
    return sqs().get().settings().endpoint();
  }

  /**
   * A transport for Once on a client of its own at {@code endpoint} (a proxy in front of SQS),
   * closed with it.
   */
  Transport openSqsTransport(java.net.URI endpoint) {
    return sqs().get().endpoint(endpoint).fifo(sqsFifo()).namePrefix("once-bench-").build();
  }

  /** Closes the bench's SQS client, if it made one. */
  @Override
  public synchronized void close() {
    if (sqsClientOwner != null) {
      sqsClientOwner.close();
      sqsClientOwner = null;
      sqsRequests = null;
    }
  }

  BenchSettings settings() {
    return settings;
  }

  /** Transactions rolled back by a deadlock and run again, per phase (Once hears them too). */
  Rollbacks rollbacks() {
    return rollbacks;
  }

  DataSource dataSource() {
    return dataSource;
  }

  public String description() {
    return description;
  }

  public String transportName() {
    return transport;
  }

  String amqp() {
    return amqp;
  }

  /** A connection of the bench's own AMQP client; a failure names the broker, not its password. */
  static Connection connect(ConnectionFactory factory, String uri, String name) {
    try {
      return factory.newConnection(name);
    } catch (IOException | TimeoutException e) {
      String why = e.getMessage() != null ? e.getMessage() : e.getClass().getSimpleName();
      // the command line scrubs every line it prints of the passwords it was given
      throw new IllegalStateException("RabbitMQ at " + uri + " is not reachable: " + why, e);
    }
  }

  /** The Kafka cluster: {@code --bootstrap}, or the embedded broker. */
  String bootstrap() {
    return bootstrap.get();
  }

  int kafkaPartitions() {
    return KAFKA_PARTITIONS;
  }

  boolean rabbit() {
    return transportName().equals("rabbitmq");
  }

  /**
   * A fresh transport for Once: the bench's prefix on RabbitMQ, a receiver prefetch of 2 batches.
   */
  Transport openTransport() {
    return openTransport(amqp());
  }

  /** As {@link #openTransport()}, on RabbitMQ at {@code amqp} (e.g. through a proxy). */
  Transport openTransport(String amqp) {
    if (rabbit()) {
      return RabbitTransport.builder()
          .uri(amqp)
          .namePrefix(RABBIT_PREFIX)
          .prefetch(settings.prefetch())
          .build();
    }
    if (onSqs()) {
      return sqsBuilder().namePrefix("once-bench-").build();
    }
    if (transportName().equals("kafka")) {
      return KafkaTransport.builder()
          .bootstrapServers(bootstrap())
          .namePrefix(RABBIT_PREFIX)
          .partitions(KAFKA_PARTITIONS)
          .build();
    }
    return TableQueueTransport.create(dataSource());
  }

  /** The queue admin of every transport the bench runs on. */
  private static QueueAdmin admin(Transport t) {
    return t.capability(QueueAdmin.class)
        .orElseThrow(() -> new IllegalStateException(t.name() + " cannot purge its queues"));
  }

  /**
   * An ordered run's consumer group on a broker that orders by queue (RabbitMQ) is declared in
   * queue order from the first declaration on: the broker refuses to change a queue's arguments.
   */
  private void inQueueOrder(Transport t, String destination, String group) {
    if (settings.ordered()) {
      t.capability(QueueOrder.class)
          .ifPresent(
              q ->
                  q.deliverInQueueOrder(destination, group, settings.batch() * settings.workers()));
    }
  }

  /** Clears the bench tables, markers, outbox rows and queues. */
  void reset(Transport t) {
    inQueueOrder(t, BenchTables.IN, BenchTables.CONSUMER);
    t.declare(BenchTables.IN, BenchTables.CONSUMER);
    t.declare(BenchTables.OUT, BenchTables.SINK);
    admin(t).purge(BenchTables.IN, BenchTables.CONSUMER);
    admin(t).purge(BenchTables.OUT, BenchTables.SINK);
    BenchTables.reset(dataSource()); // last: it vacuums what the purges deleted
  }

  /** As {@link #reset}, for the end-to-end run's two hops. */
  void resetE2e(Transport t) {
    inQueueOrder(t, BenchTables.IN, BenchTables.CONSUMER);
    t.declare(BenchTables.IN, BenchTables.CONSUMER);
    t.declare(BenchTables.E2E_DISPATCH, BenchTables.NOTIFIER);
    admin(t).purge(BenchTables.IN, BenchTables.CONSUMER);
    admin(t).purge(BenchTables.E2E_DISPATCH, BenchTables.NOTIFIER);
    BenchTables.reset(dataSource());
  }
}
