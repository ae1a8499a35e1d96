package dev.once.spring.autoconfigure;

import dev.once.ConfigurationException;
import dev.once.ConsumerBuilder;
import dev.once.ConsumerConfig;
import dev.once.OnceBuilder;
import dev.once.OnceConfig;
import dev.once.RetentionPolicy;
import dev.once.RetryPolicy;
import dev.once.spi.Validate;
import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.origin.Origin;
import org.springframework.boot.origin.OriginProvider;
import org.springframework.core.env.Environment;
import org.springframework.validation.BindingResult;
import org.springframework.validation.Errors;
import org.springframework.validation.FieldError;
import org.springframework.validation.Validator;

/**
 * Checks {@code once.*} while it is bound, so that a bad value fails the start in Boot's own report
 * (Property, Value, Origin, Reason) before the application's beans exist. The rules are the core's
 * own: each group of properties is turned into the core's value (a {@link ConsumerConfig}, a {@link
 * RetryPolicy}, an {@link OnceConfig}, a transport's settings), and the {@link
 * ConfigurationException} it throws is filed under the property its path came from — so {@code
 * retry.maxAttempts} becomes {@code once.consumers.shipping.max-attempts} or {@code
 * once.relay.max-attempts}, whichever was bound.
 */
final class OncePropertiesValidator implements Validator {

  /** The core's paths of the retry settings, and the properties they come from. */
  private static final Map<String, String> RETRY =
      Map.of(
          "retry.maxAttempts", "maxAttempts",
          "backoff.initial", "retryDelay",
          "backoff.max", "maxRetryDelay");

  private static final Map<String, String> CONSUMER =
      Map.of(
          "consumer.workers", "workers",
          "consumer.batchSize", "batchSize",
          "consumer.idleWait", "idleWait");

  private static final Map<String, String> RELAY =
      Map.of(
          "relayBatchSize", "batchSize",
          "relayIdleWait", "idleWait",
          "confirmTimeout", "confirmTimeout");

  private static final Map<String, String> ROOT =
      Map.of("destinations", "destinations", "partitions", "partitions");

  static final String RABBITMQ_CLASS = "dev.once.rabbitmq.RabbitTransport";
  static final String KAFKA_CLASS = "dev.once.kafka.KafkaTransport";

  private final ClassLoader classLoader;
  private final UnknownConsumers unknownConsumers;
  private final Iterable<ConfigurationPropertySource> sources;

  /**
   * @param classLoader the application's, to tell which transport modules it has
   * @param handlerConsumers the consumer ids of the application's {@code @OnceHandler} methods
   * @param environment where the properties come from, to name each one's origin
   */
  OncePropertiesValidator(
      ClassLoader classLoader, Set<String> handlerConsumers, Environment environment) {
    this.classLoader = classLoader;
    this.sources = ConfigurationPropertySources.get(environment);
    this.unknownConsumers = new UnknownConsumers(handlerConsumers, sources);
  }

  @Override
  public boolean supports(Class<?> type) {
    return type == OnceProperties.class
        || type == OnceProperties.Consumer.class
        || type == OnceProperties.Relay.class
        || type == OnceProperties.Table.class
        || type == OnceProperties.Rabbitmq.class
        || type == OnceProperties.Kafka.class
        || type == OnceProperties.Health.class
        || type == OnceProperties.Metrics.class;
  }

  @Override
  public void validate(Object target, Errors errors) {
    if (target instanceof OnceProperties p) {
      root(p, errors);
    } else if (target instanceof OnceProperties.Consumer c) {
      consumer(c, errors);
    } else if (target instanceof OnceProperties.Relay r) {
      relay(r, errors);
    } else if (target instanceof OnceProperties.Table t) {
      check(
          errors,
          Map.of("visibilityTimeout", "visibilityTimeout"),
          () -> {
            if (t.getVisibilityTimeout() != null) {
              Validate.positive("visibilityTimeout", t.getVisibilityTimeout());
            }
          });
    } else if (target instanceof OnceProperties.Rabbitmq r && present(RABBITMQ_CLASS)) {
      check(errors, TransportChecks.RABBITMQ, () -> TransportChecks.rabbitmq(r));
    } else if (target instanceof OnceProperties.Kafka k && present(KAFKA_CLASS)) {
      check(errors, TransportChecks.KAFKA, () -> TransportChecks.kafka(k));
    } else if (target instanceof OnceProperties.Health h) {
      health(h, errors);
    } else if (target instanceof OnceProperties.Metrics m) {
      check(
          errors,
          Map.of("refreshInterval", "refreshInterval"),
          () -> Validate.positive("refreshInterval", m.getRefreshInterval()));
    }
  }

  private void root(OnceProperties p, Errors errors) {
    check(
        errors,
        ROOT,
        () ->
            new OnceConfig(
                new LinkedHashSet<>(p.getDestinations()),
                or(p.getPartitions(), OnceBuilder.DEFAULT_PARTITIONS),
                OnceBuilder.DEFAULT_RELAY_BATCH_SIZE,
                OnceBuilder.DEFAULT_RELAY_IDLE_WAIT,
                OnceBuilder.DEFAULT_CONFIRM_TIMEOUT,
                RetryPolicy.DEFAULT,
                RetentionPolicy.DEFAULT,
                null,
                Clock.systemUTC()));
    transportModule(p.getTransport(), errors);
    unknownConsumers.check(p, errors);
  }

  private void transportModule(OnceProperties.TransportKind kind, Errors errors) {
    String missing =
        switch (kind) {
          case RABBITMQ -> present(RABBITMQ_CLASS) ? null : "once-rabbitmq";
          case KAFKA -> present(KAFKA_CLASS) ? null : "once-kafka";
          case TABLE -> null;
        };
    if (missing != null) {
      reject(
          errors,
          "transport",
          "the "
              + kind
              + " transport is in the module dev.once:"
              + missing
              + ", which is not on the classpath: add it beside the starter, or choose one of "
              + available());
    }
  }

  /** The transports this application can use, as {@code once.transport} values. */
  private String available() {
    Set<String> out = new LinkedHashSet<>();
    out.add(OnceProperties.TransportKind.TABLE.toString());
    if (present(RABBITMQ_CLASS)) {
      out.add(OnceProperties.TransportKind.RABBITMQ.toString());
    }
    if (present(KAFKA_CLASS)) {
      out.add(OnceProperties.TransportKind.KAFKA.toString());
    }
    return String.join(", ", out);
  }

  private void consumer(OnceProperties.Consumer c, Errors errors) {
    check(
        errors,
        CONSUMER,
        () ->
            new ConsumerConfig(
                "consumer",
                "destination",
                (tx, event) -> {},
                or(c.getWorkers(), ConsumerBuilder.DEFAULT_WORKERS),
                or(c.getBatchSize(), ConsumerBuilder.DEFAULT_BATCH_SIZE),
                or(c.getIdleWait(), ConsumerBuilder.DEFAULT_IDLE_WAIT),
                RetryPolicy.DEFAULT));
    check(errors, RETRY, c::retry);
  }

  private void relay(OnceProperties.Relay r, Errors errors) {
    check(
        errors,
        RELAY,
        () ->
            new OnceConfig(
                Set.of(),
                1,
                or(r.getBatchSize(), OnceBuilder.DEFAULT_RELAY_BATCH_SIZE),
                or(r.getIdleWait(), OnceBuilder.DEFAULT_RELAY_IDLE_WAIT),
                or(r.getConfirmTimeout(), OnceBuilder.DEFAULT_CONFIRM_TIMEOUT),
                RetryPolicy.DEFAULT,
                RetentionPolicy.DEFAULT,
                null,
                Clock.systemUTC()));
    check(errors, RETRY, r::retry);
  }

  /** A property's value, or core's default when it is unset. */
  private static <T> T or(T value, T coreDefault) {
    return value != null ? value : coreDefault;
  }

  /** The health thresholds are Spring's own (the core has no health): checked here. */
  private void health(OnceProperties.Health h, Errors errors) {
    if (h.getDeadLettersDown() < 0) {
      reject(
          errors,
          "deadLettersDown",
          "must be 0 (dead letters never turn the health DOWN, the default) or a count of open dead"
              + " letters >= 1, was "
              + h.getDeadLettersDown());
    }
    positiveIfSet(errors, "backlogAgeOutOfService", h.getBacklogAgeOutOfService());
    positiveIfSet(errors, "backlogAgeDown", h.getBacklogAgeDown());
    if (isPositive(h.getBacklogAgeOutOfService())
        && isPositive(h.getBacklogAgeDown())
        && h.getBacklogAgeDown().compareTo(h.getBacklogAgeOutOfService()) < 0) {
      reject(
          errors,
          "backlogAgeDown",
          "must be >= backlog-age-out-of-service ("
              + h.getBacklogAgeOutOfService()
              + "), was "
              + h.getBacklogAgeDown());
    }
  }

  private void positiveIfSet(Errors errors, String field, Duration value) {
    if (value != null && !isPositive(value)) {
      reject(errors, field, "must be > 0 (or left unset: never), was " + value);
    }
  }

  private static boolean isPositive(Duration d) {
    return d != null && !d.isNegative() && !d.isZero();
  }

  private boolean present(String className) {
    try {
      Class.forName(className, false, classLoader);
      return true;
    } catch (ClassNotFoundException | LinkageError e) {
      return false;
    }
  }

  /**
   * Runs one of the core's checks, and files the {@link ConfigurationException} it throws under the
   * property its path maps to, with the core's paths in the reason turned into property names.
   */
  private void check(Errors errors, Map<String, String> fields, Runnable check) {
    try {
      check.run();
    } catch (ConfigurationException e) {
      String field = fields.get(e.path());
      if (field == null) {
        errors.reject("once.invalid", e.getMessage());
        return;
      }
      String reason = e.getMessage().substring(e.path().length()).strip();
      for (Map.Entry<String, String> other : fields.entrySet()) {
        reason = reason.replace(other.getKey(), dashed(other.getValue()));
      }
      reject(errors, field, reason);
    }
  }

  /**
   * Files {@code reason} under the property of {@code field}, written as in a properties file
   * ({@code max-attempts}), with the origin of its value (Boot's own field errors name the Java
   * field, {@code maxAttempts}).
   */
  private void reject(Errors errors, String field, String reason) {
    String property = dashed(field);
    ConfigurationPropertyName name =
        ConfigurationPropertyName.of(errors.getObjectName()).append(property);
    Origin origin = null;
    for (ConfigurationPropertySource source : sources) {
      ConfigurationProperty bound = source.getConfigurationProperty(name);
      if (bound != null) {
        origin = bound.getOrigin();
        break;
      }
    }
    ((BindingResult) errors)
        .addError(
            new PropertyError(
                errors.getObjectName(), property, errors.getFieldValue(field), reason, origin));
  }

  /** A field error that carries the origin of its value, so that Boot's report shows it. */
  static final class PropertyError extends FieldError implements OriginProvider {
    private static final long serialVersionUID = 1L;
    private final transient Origin origin;

    PropertyError(String object, String property, Object value, String reason, Origin origin) {
      super(object, property, value, false, new String[] {"once.invalid"}, null, reason);
      this.origin = origin;
    }

    @Override
    public Origin getOrigin() {
      return origin;
    }
  }

  /** {@code maxRetryDelay} → {@code max-retry-delay}, as the property is written. */
  static String dashed(String field) {
    return field.replaceAll("([a-z0-9])([A-Z])", "$1-$2").toLowerCase(java.util.Locale.ROOT);
  }
}
