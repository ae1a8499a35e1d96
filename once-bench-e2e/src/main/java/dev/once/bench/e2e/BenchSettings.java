package dev.once.bench.e2e;

/**
 * The shape of one bench run, shared by Once and its ceilings so that the ratios compare the same
 * work: {@code workers} consumer threads taking {@code batch} deliveries per transaction, {@code
 * relays} relays publishing {@code relayBatch} rows per batch, {@code producers} producer threads
 * committing {@code producerBatch} events per transaction; {@code ordered}: Once's consumers are
 * ordered by key (the ceilings are not).
 */
public record BenchSettings(
    int events,
    int workers,
    int batch,
    int relays,
    int relayBatch,
    int producers,
    int producerBatch,
    int latencyProducers,
    int latencySeconds,
    int timeoutSeconds,
    boolean ordered) {

  public BenchSettings {
    range("--events", events, 1, 100_000_000);
    range("--workers", workers, 1, 64);
    range("--batch", batch, 1, 64);
    range("--relays", relays, 1, 16);
    range("--relay-batch", relayBatch, 1, 10_000);
    range("--producers", producers, 1, 64);
    range("--producer-batch", producerBatch, 1, 10_000);
    range("--latency-producers", latencyProducers, 1, 256);
    range("--latency-seconds", latencySeconds, 0, 3600);
    range("--timeout", timeoutSeconds, 1, 86_400);
  }

  private static void range(String option, int value, int min, int max) {
    if (value < min || value > max) {
      throw new IllegalArgumentException(
          option + " must be between " + min + " and " + max + ", was " + value);
    }
  }

  /** The same shape for {@code events} events and a paced run of {@code latencySeconds}. */
  public BenchSettings with(int events, int latencySeconds) {
    return new BenchSettings(
        events,
        workers,
        batch,
        relays,
        relayBatch,
        producers,
        producerBatch,
        latencyProducers,
        latencySeconds,
        timeoutSeconds,
        ordered);
  }

  /** Once's consumer {@code builder}, ordered when the run is. */
  public dev.once.ConsumerBuilder shape(dev.once.ConsumerBuilder builder) {
    return ordered ? builder.ordered() : builder;
  }

  /** Unacknowledged deliveries a RabbitMQ receiver may hold: two batches, so it never starves. */
  int prefetch() {
    return batch * 2;
  }
}
