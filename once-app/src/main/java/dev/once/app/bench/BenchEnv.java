package dev.once.app.bench;

import dev.once.app.Database;
import dev.once.app.Migrations;
import dev.once.app.TransportOptions;
import dev.once.app.UserError;
import dev.once.rabbitmq.RabbitTransport;
import dev.once.spi.Transport;
import dev.once.tablequeue.TableQueueTransport;
import javax.sql.DataSource;

/** The database and broker a bench runs on, with the schema and the bench tables in place. */
final class BenchEnv implements AutoCloseable {
  static final String RABBIT_PREFIX = "once-bench.";

  private final Database database;
  private final TransportOptions transport;
  private final BenchSettings settings;

  BenchEnv(BenchOptions options, BenchSettings settings) {
    this.transport = options.transport;
    this.settings = settings;
    this.database =
        Database.open(
            options.db,
            settings.workers() * 3 + settings.relays() * 2 + settings.latencyProducers() + 16);
    Migrations.apply(database.dataSource());
    if (!transportName().equals("table") && !rabbit()) {
      database.close();
      throw new UserError(
          "--transport must be 'table' or 'rabbitmq', was '" + transportName() + "'");
    }
  }

  BenchSettings settings() {
    return settings;
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
    return TableQueueTransport.create(dataSource());
  }

  /** Clears the bench tables, markers, outbox rows and queues. */
  void reset(Transport t) {
    t.declare(BenchTables.IN, BenchTables.CONSUMER);
    t.declare(BenchTables.OUT, BenchTables.SINK);
    t.purge(BenchTables.IN, BenchTables.CONSUMER);
    t.purge(BenchTables.OUT, BenchTables.SINK);
    BenchTables.reset(dataSource()); // last: it vacuums what the purges deleted
  }

  /** As {@link #reset}, for the end-to-end run's two hops. */
  void resetE2e(Transport t) {
    t.declare(BenchTables.IN, BenchTables.CONSUMER);
    t.declare(BenchTables.E2E_DISPATCH, BenchTables.NOTIFIER);
    t.purge(BenchTables.IN, BenchTables.CONSUMER);
    t.purge(BenchTables.E2E_DISPATCH, BenchTables.NOTIFIER);
    BenchTables.reset(dataSource());
  }

  @Override
  public void close() {
    database.close();
  }
}
