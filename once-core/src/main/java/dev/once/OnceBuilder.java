package dev.once;

import dev.once.internal.DataSourceTransactions;
import dev.once.internal.OnceImpl;
import dev.once.internal.PostgresDialect;
import dev.once.spi.Dialect;
import dev.once.spi.TransactionRunner;
import dev.once.spi.Transport;
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
  private Dialect dialect = new PostgresDialect();
  private final Set<String> destinations = new LinkedHashSet<>();
  private final List<OnceListener> listeners = new ArrayList<>();
  private int partitions = 16;
  private int relayBatchSize = 200;
  private Duration relayIdleWait = Duration.ofSeconds(1);
  private Duration confirmTimeout = Duration.ofSeconds(30);
  private Duration publishRetryDelay = Duration.ofSeconds(5);
  private Duration maxPublishRetryDelay = Duration.ofMinutes(5);
  private int relayMaxAttempts = 10;
  private RetentionPolicy retention = RetentionPolicy.DEFAULT;
  private Clock clock = Clock.systemUTC();
  private TransactionRunner transactions;

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

  public OnceBuilder dialect(Dialect dialect) {
    this.dialect = dialect;
    return this;
  }

  /** Declares destinations events may be published to. At least one is required. */
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

  /** Backoff of an outbox row the broker refused: doubling from the first delay to the cap. */
  public OnceBuilder publishRetryDelay(Duration publishRetryDelay, Duration maxPublishRetryDelay) {
    this.publishRetryDelay = publishRetryDelay;
    this.maxPublishRetryDelay = maxPublishRetryDelay;
    return this;
  }

  public OnceBuilder publishRetryDelay(Duration publishRetryDelay) {
    this.publishRetryDelay = publishRetryDelay;
    return this;
  }

  /** Publish attempts of one outbox row before the relay parks it as a dead letter. Default 10. */
  public OnceBuilder relayMaxAttempts(int relayMaxAttempts) {
    this.relayMaxAttempts = relayMaxAttempts;
    return this;
  }

  /** What {@link Once#retention()} deletes, and when. Default {@link RetentionPolicy#DEFAULT}. */
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
    Validate.notNull("dialect", dialect);
    Validate.notNull("clock", clock);
    if (destinations.isEmpty()) {
      throw new ConfigurationException("destinations", "must name at least one destination");
    }
    for (String d : destinations) {
      Validate.name("destinations", d);
    }
    Validate.range("partitions", partitions, 1, 4096);
    Validate.range("relayBatchSize", relayBatchSize, 1, 10_000);
    Validate.positive("relayIdleWait", relayIdleWait);
    Validate.positive("confirmTimeout", confirmTimeout);
    Validate.positive("publishRetryDelay", publishRetryDelay);
    Validate.positive("maxPublishRetryDelay", maxPublishRetryDelay);
    Validate.range("relayMaxAttempts", relayMaxAttempts, 1, 1000);
    Validate.notNull("retention", retention);
    OnceConfig config =
        new OnceConfig(
            Set.copyOf(destinations),
            partitions,
            relayBatchSize,
            relayIdleWait,
            confirmTimeout,
            publishRetryDelay,
            maxPublishRetryDelay,
            relayMaxAttempts,
            retention,
            clock);
    TransactionRunner runner =
        transactions != null ? transactions : new DataSourceTransactions(dataSource);
    return new OnceImpl(dataSource, transport, dialect, runner, config, listeners);
  }
}
