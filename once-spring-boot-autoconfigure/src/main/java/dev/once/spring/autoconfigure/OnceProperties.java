package dev.once.spring.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.springframework.boot.context.properties.ConfigurationProperties;

/** Settings of Once in a Spring Boot application, under {@code once.*}. */
@ConfigurationProperties("once")
public class OnceProperties {

  /** Whether Once is configured at all. */
  private boolean enabled = true;

  /**
   * Destinations events may be published to, beside those inferred from the @OnceHandler methods.
   */
  private List<String> destinations = new ArrayList<>();

  /**
   * The broker: the table queue in the application's database (table), RabbitMQ (rabbitmq, module
   * once-rabbitmq) or Kafka (kafka, module once-kafka).
   */
  private TransportKind transport = TransportKind.TABLE;

  /**
   * Whether a consumer id under once.consumers that no @OnceHandler uses fails the start (a typo
   * would leave the meant consumer on its defaults); false logs a warning instead, for a
   * configuration shared by services that run different consumers.
   */
  private boolean failOnUnknownConsumers = true;

  /**
   * Partitions of the outbox (events with the same key keep their order). Unset: core's default.
   */
  private Integer partitions;

  private final Table table = new Table();
  private final Rabbitmq rabbitmq = new Rabbitmq();
  private final Kafka kafka = new Kafka();
  private final Schema schema = new Schema();
  private final Relay relay = new Relay();
  private final Retention retention = new Retention();
  private final Health health = new Health();
  private final Metrics metrics = new Metrics();

  /** Settings per consumer id. */
  private Map<String, Consumer> consumers = new LinkedHashMap<>();

  public enum TransportKind {
    /** The table queue in the application's PostgreSQL database. */
    TABLE,
    /** RabbitMQ, connected with the spring.rabbitmq.* settings. */
    RABBITMQ,
    /** Kafka, connected with spring.kafka.bootstrap-servers. */
    KAFKA;

    /** The value as {@code once.transport} is written: {@code table}, {@code rabbitmq}, … */
    @Override
    public String toString() {
      return name().toLowerCase(java.util.Locale.ROOT);
    }
  }

  public static class Kafka {
    /** Put before every topic and consumer-group name. Unset: the transport's default. */
    private String namePrefix;

    /** Partitions of the topics Once creates. Unset: the transport's default. */
    private Integer partitions;

    public String getNamePrefix() {
      return namePrefix;
    }

    public void setNamePrefix(String namePrefix) {
      this.namePrefix = namePrefix;
    }

    public Integer getPartitions() {
      return partitions;
    }

    public void setPartitions(Integer partitions) {
      this.partitions = partitions;
    }
  }

  public static class Table {
    /**
     * How long a delivery stays invisible before it comes back unacknowledged. Unset: the table
     * queue's default.
     */
    private Duration visibilityTimeout;

    public Duration getVisibilityTimeout() {
      return visibilityTimeout;
    }

    public void setVisibilityTimeout(Duration visibilityTimeout) {
      this.visibilityTimeout = visibilityTimeout;
    }
  }

  public static class Rabbitmq {
    /** Prefix of Once's exchanges and queues. Unset: the transport's default. */
    private String namePrefix;

    /** Unacknowledged deliveries per receiver. Unset: the transport's default. */
    private Integer prefetch;

    /**
     * Deliveries of one message before the broker dead-letters it; every return counts, also a
     * crash's or a cut connection's. Unset: the transport's default.
     */
    private Integer deliveryLimit;

    public String getNamePrefix() {
      return namePrefix;
    }

    public void setNamePrefix(String namePrefix) {
      this.namePrefix = namePrefix;
    }

    public Integer getPrefetch() {
      return prefetch;
    }

    public void setPrefetch(Integer prefetch) {
      this.prefetch = prefetch;
    }

    public Integer getDeliveryLimit() {
      return deliveryLimit;
    }

    public void setDeliveryLimit(Integer deliveryLimit) {
      this.deliveryLimit = deliveryLimit;
    }
  }

  public static class Schema {
    /**
     * Apply Once's schema at start with Flyway (history table once_schema_history, apart from the
     * application's own), when Flyway is on the classpath.
     */
    private boolean flyway = true;

    /** Apply Once's schema at start without Flyway (idempotent SQL). */
    private boolean apply = false;

    public boolean isFlyway() {
      return flyway;
    }

    public void setFlyway(boolean flyway) {
      this.flyway = flyway;
    }

    public boolean isApply() {
      return apply;
    }

    public void setApply(boolean apply) {
      this.apply = apply;
    }
  }

  /**
   * The relay's settings under {@code once.relay}; its properties are {@link
   * OnceRelayProperties}'s.
   */
  public static class Relay extends OnceRelayProperties {}

  public static class Retention {
    /** Whether this application runs the retention janitor (deletes old markers and rows). */
    private boolean enabled = true;

    public boolean isEnabled() {
      return enabled;
    }

    public void setEnabled(boolean enabled) {
      this.enabled = enabled;
    }
  }

  /**
   * The settings of one consumer under {@code once.consumers.<id>}; its properties are {@link
   * OnceConsumerProperties}'s.
   */
  public static class Consumer extends OnceConsumerProperties {}

  /**
   * The health indicator's thresholds under {@code once.health}; its properties are {@link
   * OnceHealthProperties}'s.
   */
  public static class Health extends OnceHealthProperties {}

  public static class Metrics {
    /** How often the workload gauges (backlogs, ages, dead letters) are read from the database. */
    private Duration refreshInterval = Duration.ofSeconds(10);

    public Duration getRefreshInterval() {
      return refreshInterval;
    }

    public void setRefreshInterval(Duration refreshInterval) {
      this.refreshInterval = refreshInterval;
    }
  }

  public boolean isEnabled() {
    return enabled;
  }

  public void setEnabled(boolean enabled) {
    this.enabled = enabled;
  }

  public boolean isFailOnUnknownConsumers() {
    return failOnUnknownConsumers;
  }

  public void setFailOnUnknownConsumers(boolean failOnUnknownConsumers) {
    this.failOnUnknownConsumers = failOnUnknownConsumers;
  }

  public List<String> getDestinations() {
    return destinations;
  }

  public void setDestinations(List<String> destinations) {
    this.destinations = destinations;
  }

  public TransportKind getTransport() {
    return transport;
  }

  public void setTransport(TransportKind transport) {
    this.transport = transport;
  }

  public Integer getPartitions() {
    return partitions;
  }

  public void setPartitions(Integer partitions) {
    this.partitions = partitions;
  }

  public Table getTable() {
    return table;
  }

  public Rabbitmq getRabbitmq() {
    return rabbitmq;
  }

  public Kafka getKafka() {
    return kafka;
  }

  public Schema getSchema() {
    return schema;
  }

  public Relay getRelay() {
    return relay;
  }

  public Retention getRetention() {
    return retention;
  }

  public Health getHealth() {
    return health;
  }

  public Metrics getMetrics() {
    return metrics;
  }

  public Map<String, Consumer> getConsumers() {
    return consumers;
  }

  public void setConsumers(Map<String, Consumer> consumers) {
    this.consumers = consumers;
  }

  /**
   * Sets on {@code once} what is set under {@code once.partitions} and {@code once.relay}; the rest
   * keeps core's defaults.
   */
  public dev.once.OnceBuilder applyTo(dev.once.OnceBuilder once) {
    if (partitions != null) {
      once.partitions(partitions);
    }
    return relay.applyTo(once);
  }

  /** The settings of {@code consumerId}: its own, or the defaults. */
  public Consumer consumer(String consumerId) {
    return consumers.getOrDefault(consumerId, new Consumer());
  }
}
