package dev.once.app.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.once.app.common.Database;
import dev.once.app.common.DatabaseOptions;
import dev.once.app.common.Logging;
import dev.once.app.common.Migrations;
import dev.once.app.common.TransportOptions;
import dev.once.app.common.UserError;
import dev.once.bench.e2e.BenchEnv;
import dev.once.bench.e2e.BenchResult;
import dev.once.bench.e2e.BenchSettings;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** Options every bench run shares. */
final class BenchOptions {
  @Mixin DatabaseOptions db = new DatabaseOptions();

  @Mixin TransportOptions transport;

  @Option(
      names = "--workers",
      defaultValue = "4",
      description = "Consumer worker threads (and ceiling threads) (default ${DEFAULT-VALUE}).")
  int workers;

  @Option(
      names = "--batch",
      defaultValue = "32",
      description = "Deliveries per consumer transaction (default ${DEFAULT-VALUE}).")
  int batch;

  @Option(
      names = "--relays",
      defaultValue = "2",
      description = "Relays (and ceiling publishers) (default ${DEFAULT-VALUE}).")
  int relays;

  @Option(
      names = "--relay-batch",
      defaultValue = "200",
      description = "Outbox rows per relay batch (default ${DEFAULT-VALUE}).")
  int relayBatch;

  @Option(
      names = "--producers",
      defaultValue = "4",
      description = "Producer threads (default ${DEFAULT-VALUE}).")
  int producers;

  @Option(
      names = "--producer-batch",
      description =
          "Events per producer transaction (default 100 when pre-loading a backlog, 1 for"
              + " 'bench e2e').")
  Integer producerBatch;

  @Option(
      names = "--latency-producers",
      defaultValue = "16",
      description =
          "Producer threads of the paced latency run, one event per transaction"
              + " (default ${DEFAULT-VALUE}).")
  int latencyProducers;

  @Option(
      names = "--timeout",
      defaultValue = "900",
      description = "Seconds any one phase may take (default ${DEFAULT-VALUE}).")
  int timeoutSeconds;

  @Option(
      names = "--ordered",
      description =
          "Once's consumers ordered by key (ConsumerBuilder.ordered()); refused with --transport"
              + " sqs (standard queues keep no order: sqs-fifo does).")
  boolean ordered;

  @Option(names = "--json", description = "Print the results as one JSON object on stdout.")
  boolean json;

  BenchSettings settings(int events, int latencySeconds) {
    return settings(events, latencySeconds, 100);
  }

  /** What a bench subcommand runs once its database and broker are open. */
  interface Bench {
    BenchResult run(BenchEnv env) throws Exception;
  }

  /**
   * Opens the database ({@code --db}, Once's schema applied) and checks the broker of {@code
   * --transport} ({@code kafka}: whether this bench runs on Kafka), runs {@code bench} on them,
   * prints its result (JSON with {@code --json}) and returns the exit code: 1 if it saw a duplicate
   * effect.
   */
  int run(BenchSettings settings, boolean kafka, Bench bench) throws Exception {
    String name = transport.name();
    boolean known =
        name.equals("table")
            || name.equals("rabbitmq")
            || (kafka && (name.equals("kafka") || name.startsWith("sqs")));
    if (!known) {
      throw new UserError(
          (kafka
                  ? "--transport must be 'table', 'rabbitmq', 'kafka', 'sqs' or 'sqs-fifo', was '"
                  : "--transport must be 'table' or 'rabbitmq', was '")
              + name
              + "'");
    }
    if (settings.ordered() && name.equals("sqs")) {
      throw new UserError(
          "--ordered is refused with --transport sqs: a standard SQS queue hands a key's messages"
              + " to competing receivers in no order; use --transport sqs-fifo");
    }
    if (name.equals("rabbitmq")) {
      transport.checkedAmqp(); // before ceiling A, not after it
    }
    Logging.quietEngine(true);
    try (Database database = db.openOrUrlSchema(BenchEnv.poolSize(settings));
        BenchEnv env =
            new BenchEnv(
                database.dataSource(),
                database.description(),
                name,
                transport.amqp(),
                transport::bootstrap,
                settings)) {
      Migrations.apply(database.dataSource());
      env.jdbcUrl(database.jdbcUrl());
      if (name.startsWith("sqs")) {
        env.sqs(transport::sqsBuilder);
      }
      BenchResult result = bench.run(env);
      if (json) {
        System.out.println(new ObjectMapper().writeValueAsString(result.json()));
      } else {
        result.print(System.out);
      }
      return result.ok() ? 0 : 1;
    }
  }

  /** As above; {@code defaultProducerBatch} unless {@code --producer-batch} was given. */
  BenchSettings settings(int events, int latencySeconds, int defaultProducerBatch) {
    return new BenchSettings(
        events,
        workers,
        batch,
        relays,
        relayBatch,
        producers,
        producerBatch == null ? defaultProducerBatch : producerBatch,
        latencyProducers,
        latencySeconds,
        timeoutSeconds,
        ordered);
  }
}
