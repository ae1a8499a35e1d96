package dev.once;

import dev.once.internal.DataSourceTransactions;
import dev.once.internal.wiring.OnceImpl;
import dev.once.jdbc.Dialect;
import dev.once.jdbc.Dialects;
import dev.once.spi.RetentionCheck;
import dev.once.spi.TransactionRunner;
import dev.once.spi.Transport;
import dev.once.spi.Validate;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import javax.sql.DataSource;

/** Builds a {@link Once}. {@link #build()} validates every setting and checks the schema. */
public final class OnceBuilder {
  private DataSource dataSource;
  private Transport transport;
  private Dialect dialect;
  private final Set<String> destinations = new LinkedHashSet<>();
  private final List<OnceListener> listeners = new ArrayList<>();
  private Tracing tracing = Tracing.NONE;
  private int partitions = DEFAULT_PARTITIONS;
  private int relayBatchSize = DEFAULT_RELAY_BATCH_SIZE;
  private Duration relayIdleWait = DEFAULT_RELAY_IDLE_WAIT;
  private Duration confirmTimeout = DEFAULT_CONFIRM_TIMEOUT;
  private RetryPolicy relayRetry = DEFAULT_RELAY_RETRY;
  private RetentionPolicy retention = RetentionPolicy.DEFAULT;
  private PayloadCodec codec;
  private Clock clock = Clock.systemUTC();
  private TransactionRunner transactions;
  private DatabaseTimeouts databaseTimeouts = DatabaseTimeouts.DEFAULT;

  /** The default of {@link #partitions}: 16. */
  public static final int DEFAULT_PARTITIONS = 16;

  /** The default of {@link #relayBatchSize}: 200. */
  public static final int DEFAULT_RELAY_BATCH_SIZE = 200;

  /** The default of {@link #relayIdleWait}: 1 s. */
  public static final Duration DEFAULT_RELAY_IDLE_WAIT = Duration.ofSeconds(1);

  /** The default of {@link #confirmTimeout}: 30 s. */
  public static final Duration DEFAULT_CONFIRM_TIMEOUT = Duration.ofSeconds(30);

  /** 10 publish attempts, 5 s doubling to 5 min, half jitter. */
  public static final RetryPolicy DEFAULT_RELAY_RETRY =
      RetryPolicy.builder()
          .maxAttempts(10)
          .backoff(Duration.ofSeconds(5), Duration.ofMinutes(5))
          .build();

  OnceBuilder() {}

  /** The database of the outbox and the inbox, and of your business tables. Required. */
  public OnceBuilder dataSource(DataSource dataSource) {
    this.dataSource = dataSource;
    return this;
  }

  /** The broker. Required. */
  public OnceBuilder transport(Transport transport) {
    this.transport = transport;
    return this;
  }

  /**
   * The database's dialect. Default: chosen from the data source's product name ({@link
   * Dialects#forDataSource}).
   */
  public OnceBuilder dialect(Dialect dialect) {
    this.dialect = dialect;
    return this;
  }

  /**
   * Declares the destinations this instance publishes to and subscribes to; publishing or
   * subscribing anywhere else fails ({@link UnknownDestinationException}, at {@code tx.publish} and
   * at the consumer's {@code build()}). None: the instance only consumes, from any destination (or
   * administers).
   */
  public OnceBuilder destinations(String... names) {
    for (String name : names) {
      destinations.add(name);
    }
    return this;
  }

  public OnceBuilder listener(OnceListener listener) {
    listeners.add(listener);
    return this;
  }

  /**
   * The tracing hook: spans for publish, relay send, each delivery attempt, operation calls and
   * dead letters, with the trace context carried in the events' headers. {@code once-tracing}'s
   * {@code ObservationTracing} is the one over Micrometer Observation. Default {@link
   * Tracing#NONE}.
   */
  public OnceBuilder tracing(Tracing tracing) {
    this.tracing = Validate.notNull("tracing", tracing);
    return this;
  }

  public OnceBuilder partitions(int partitions) {
    this.partitions = partitions;
    return this;
  }

  public OnceBuilder relayBatchSize(int relayBatchSize) {
    this.relayBatchSize = relayBatchSize;
    return this;
  }

  public OnceBuilder relayIdleWait(Duration relayIdleWait) {
    this.relayIdleWait = relayIdleWait;
    return this;
  }

  public OnceBuilder confirmTimeout(Duration confirmTimeout) {
    this.confirmTimeout = confirmTimeout;
    return this;
  }

  /**
   * Publish attempts of an outbox row the broker refused before the relay parks it as a dead
   * letter, and the backoff between them. Default {@link #DEFAULT_RELAY_RETRY}.
   */
  public OnceBuilder relayRetry(RetryPolicy relayRetry) {
    this.relayRetry = relayRetry;
    return this;
  }

  /** The codec of typed payloads. Default: the one on the classpath ({@code once-jackson}). */
  public OnceBuilder codec(PayloadCodec codec) {
    this.codec = codec;
    return this;
  }

  /**
   * What {@link Once#newRetention()} deletes, and when. Default {@link RetentionPolicy#DEFAULT}.
   */
  public OnceBuilder retention(RetentionPolicy retention) {
    this.retention = retention;
    return this;
  }

  /**
   * Who runs Once's transactions (producers' and consumers' batches). Default: a connection of the
   * data source, committed by Once. A framework integration passes its own, e.g. Spring's
   * transaction manager, so that the application's writes share the transaction.
   */
  public OnceBuilder transactions(TransactionRunner transactions) {
    this.transactions = transactions;
    return this;
  }

  /**
   * How long Once waits for the database: on every connection it borrows, and in its transactions
   * (see {@link DatabaseTimeouts}). Default {@link DatabaseTimeouts#DEFAULT}: a half-open
   * connection costs a worker 30 s, not the rest of its life.
   */
  public OnceBuilder databaseTimeouts(DatabaseTimeouts databaseTimeouts) {
    this.databaseTimeouts = Validate.notNull("databaseTimeouts", databaseTimeouts);
    return this;
  }

  public OnceBuilder clock(Clock clock) {
    this.clock = clock;
    return this;
  }

  /**
   * Validates the settings, checks that the schema is there and returns the instance.
   *
   * @throws ConfigurationException naming the first bad setting
   * @throws SchemaMissingException if a Once table is missing
   */
  public Once build() {
    Validate.notNull("dataSource", dataSource);
    Validate.notNull("transport", transport);
    OnceConfig config =
        new OnceConfig(
            destinations,
            partitions,
            relayBatchSize,
            relayIdleWait,
            confirmTimeout,
            relayRetry,
            retention,
            codec,
            clock);
    transport.capability(RetentionCheck.class).ifPresent(r -> r.checkRetention(config.retention()));
    Dialect chosen = dialect != null ? dialect : Dialects.forDataSource(dataSource);
    TransactionRunner runner =
        transactions != null ? transactions : new DataSourceTransactions(dataSource);
    return new OnceImpl(
        dataSource, transport, chosen, runner, config, listeners, tracing, databaseTimeouts);
  }
}
