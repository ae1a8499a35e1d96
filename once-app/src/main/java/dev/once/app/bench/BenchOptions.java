package dev.once.app.bench;

import dev.once.app.TransportOptions;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** Options every bench run shares. */
final class BenchOptions {
  @Option(
      names = "--db",
      description =
          "PostgreSQL or MariaDB/MySQL JDBC URL, e.g."
              + " jdbc:postgresql://127.0.0.1:5432/test?user=postgres or"
              + " jdbc:mariadb://127.0.0.1:3306/test?user=root."
              + " Default: $ONCE_DB, else an embedded PostgreSQL in .once/pg.")
  String db;

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

  @Option(names = "--json", description = "Print the results as one JSON object on stdout.")
  boolean json;

  BenchSettings settings(int events, int latencySeconds) {
    return settings(events, latencySeconds, 100);
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
        timeoutSeconds);
  }
}
