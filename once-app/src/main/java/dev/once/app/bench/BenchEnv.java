package dev.once.app.bench;

import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import dev.once.app.Database;
import dev.once.app.Migrations;
import dev.once.app.Secrets;
import dev.once.app.TransportOptions;
import dev.once.app.UserError;
import dev.once.kafka.KafkaTransport;
import dev.once.rabbitmq.RabbitTransport;
import dev.once.spi.QueueAdmin;
import dev.once.spi.Transport;
import dev.once.tablequeue.TableQueueTransport;
import java.io.IOException;
import java.util.concurrent.TimeoutException;
import javax.sql.DataSource;

/** The database and broker a bench runs on, with the schema and the bench tables in place. */
final class BenchEnv implements AutoCloseable {
  static final String RABBIT_PREFIX = "once-bench.";

  private final Database database;
  private final TransportOptions transport;
  private final BenchSettings settings;
  private final Rollbacks rollbacks = new Rollbacks();

  /** Partitions of the bench's Kafka topics, Once's and the hand-written pipeline's alike. */
  static final int KAFKA_PARTITIONS = 6;

  BenchEnv(BenchOptions options, BenchSettings settings) {
    this(options, settings, false);
  }

  /** {@code kafka}: whether this bench runs on Kafka too ({@code bench e2e} does). */
  BenchEnv(BenchOptions options, BenchSettings settings, boolean kafka) {
    this.transport = options.transport;
    if (transport.name().equals("rabbitmq")) {
      transport.checkedAmqp(); // before ceiling A, not after it
    }
    this.settings = settings;
    rollbacks.clear(); // the producers' count is per process: a new bench starts at 0
    this.database =
        Database.open(
            options.db,
            settings.workers() * 3 + settings.relays() * 2 + settings.latencyProducers() + 16);
    Migrations.apply(database.dataSource());
    boolean known =
        transportName().equals("table") || rabbit() || (kafka && transportName().equals("kafka"));
    if (!known) {
      database.close();
      throw new UserError(
          (kafka
                  ? "--transport must be 'table', 'rabbitmq' or 'kafka', was '"
                  : "--transport must be 'table' or 'rabbitmq', was '")
              + transportName()
              + "'");
    }
    if (transportName().equals("kafka")) {
      try {
        startKafka();
      } catch (RuntimeException e) {
        database.close();
        throw e;
      }
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
    return database.dataSource();
  }

  String description() {
    return database.description();
  }

  String transportName() {
    return transport.name();
  }

  String amqp() {
    return transport.amqp();
  }

  /** A connection of the bench's own AMQP client; a failure names the broker, not its password. */
  static Connection connect(ConnectionFactory factory, String uri, String name) {
    try {
      return factory.newConnection(name);
    } catch (IOException | TimeoutException e) {
      String why = e.getMessage() != null ? e.getMessage() : e.getClass().getSimpleName();
      throw new UserError(
          "RabbitMQ at " + Secrets.scrub(uri) + " is not reachable: " + Secrets.scrub(why), e);
    }
  }

  /**
   * Starts the embedded broker (when there is no {@code --bootstrap}) with stdout pointed at
   * stderr: formatting a fresh data folder prints a line on stdout, and with {@code --json} stdout
   * must hold the JSON alone.
   */
  private void startKafka() {
    java.io.PrintStream out = System.out;
    System.setOut(System.err);
    try {
      bootstrap();
    } finally {
      System.setOut(out);
    }
  }

  /** The Kafka cluster: {@code --bootstrap}, or the embedded broker. */
  String bootstrap() {
    return transport.bootstrap();
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
    if (rabbit()) {
      return RabbitTransport.builder()
          .uri(amqp())
          .namePrefix(RABBIT_PREFIX)
          .prefetch(settings.prefetch())
          .build();
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

  /** Clears the bench tables, markers, outbox rows and queues. */
  void reset(Transport t) {
    t.declare(BenchTables.IN, BenchTables.CONSUMER);
    t.declare(BenchTables.OUT, BenchTables.SINK);
    admin(t).purge(BenchTables.IN, BenchTables.CONSUMER);
    admin(t).purge(BenchTables.OUT, BenchTables.SINK);
    BenchTables.reset(dataSource()); // last: it vacuums what the purges deleted
  }

  /** As {@link #reset}, for the end-to-end run's two hops. */
  void resetE2e(Transport t) {
    t.declare(BenchTables.IN, BenchTables.CONSUMER);
    t.declare(BenchTables.E2E_DISPATCH, BenchTables.NOTIFIER);
    admin(t).purge(BenchTables.IN, BenchTables.CONSUMER);
    admin(t).purge(BenchTables.E2E_DISPATCH, BenchTables.NOTIFIER);
    BenchTables.reset(dataSource());
  }

  @Override
  public void close() {
    database.close();
  }
}
