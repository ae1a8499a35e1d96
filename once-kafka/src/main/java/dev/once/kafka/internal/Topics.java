package dev.once.kafka.internal;

import dev.once.BrokerUnavailableException;
import dev.once.kafka.KafkaSettings;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The transport's admin client: creates a destination's topic when a consumer group is declared,
 * tells the publisher whether a topic exists, and answers depth and purge.
 */
public final class Topics implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(Topics.class);
  private final Duration call;

  private final KafkaSettings settings;
  private final Set<String> known = ConcurrentHashMap.newKeySet();
  private final Map<String, Long> missingUntil = new ConcurrentHashMap<>();
  private volatile Admin admin;

  public Topics(KafkaSettings settings) {
    this.settings = settings;
    Duration d = settings.deliveryTimeout();
    this.call = d.compareTo(Duration.ofSeconds(15)) < 0 ? d : Duration.ofSeconds(15);
  }

  private Admin admin() {
    Admin a = admin;
    if (a == null) {
      synchronized (this) {
        if (admin == null) {
          Properties p = Clients.common(settings, "once-admin");
          p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, String.valueOf(call.toMillis()));
          p.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, String.valueOf(call.toMillis()));
          admin = Admin.create(p);
        }
        a = admin;
      }
    }
    return a;
  }

  /** Creates the destination's topic unless it exists. */
  public void ensure(String destination) {
    String topic = settings.topic(destination);
    if (known.contains(topic)) {
      return;
    }
    NewTopic t =
        new NewTopic(
                topic,
                Optional.of(settings.partitions()),
                Optional.of(settings.replicationFactor()))
            .configs(
                Map.of(
                    TopicConfig.RETENTION_MS_CONFIG,
                    String.valueOf(settings.topicRetention().toMillis())));
    try {
      for (int attempt = 1; ; attempt++) { // a loaded broker may miss one deadline
        try {
          admin().createTopics(List.of(t)).all().get(call.toMillis(), TimeUnit.MILLISECONDS);
          log.info("created topic {} ({} partitions)", topic, settings.partitions());
          break;
        } catch (TimeoutException e) {
          if (attempt == 3) {
            throw e;
          }
          log.warn("create topic {}: no answer within {}; again", topic, call);
        }
      }
    } catch (ExecutionException e) {
      if (!(e.getCause() instanceof TopicExistsException)) {
        throw BrokerUnavailableException.failed("Kafka", "create topic " + topic, e.getCause());
      }
    } catch (TimeoutException e) {
      throw BrokerUnavailableException.failed(
          "Kafka", "create topic " + topic + " (3 attempts)", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw BrokerUnavailableException.failed("Kafka", "create topic " + topic, e);
    }
    known.add(topic);
    missingUntil.remove(topic);
  }

  /**
   * Whether the topic exists. A missing topic is asked again after a second; an unreachable cluster
   * throws.
   */
  public boolean exists(String topic) {
    if (known.contains(topic)) {
      return true;
    }
    Long until = missingUntil.get(topic);
    if (until != null && until > System.nanoTime()) {
      return false;
    }
    try {
      admin()
          .describeTopics(List.of(topic))
          .allTopicNames()
          .get(call.toMillis(), TimeUnit.MILLISECONDS);
      known.add(topic);
      return true;
    } catch (ExecutionException e) {
      if (e.getCause() instanceof UnknownTopicOrPartitionException) {
        missingUntil.put(topic, System.nanoTime() + Duration.ofSeconds(1).toNanos());
        return false;
      }
      throw BrokerUnavailableException.failed("Kafka", "describe topic " + topic, e.getCause());
    } catch (TimeoutException e) {
      throw BrokerUnavailableException.failed("Kafka", "describe topic " + topic, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw BrokerUnavailableException.failed("Kafka", "describe topic " + topic, e);
    }
  }

  /** Records after the group's committed offsets, summed over partitions. */
  public OptionalLong lag(String destination, String groupId) {
    String topic = settings.topic(destination);
    try {
      Map<TopicPartition, Long> ends = endOffsets(topic);
      Map<TopicPartition, OffsetAndMetadata> committed =
          admin()
              .listConsumerGroupOffsets(groupId)
              .partitionsToOffsetAndMetadata()
              .get(call.toMillis(), TimeUnit.MILLISECONDS);
      long lag = 0;
      for (Map.Entry<TopicPartition, Long> e : ends.entrySet()) {
        OffsetAndMetadata c = committed.get(e.getKey());
        long from = c == null ? beginning(e.getKey()) : c.offset();
        lag += Math.max(0, e.getValue() - from);
      }
      return OptionalLong.of(lag);
    } catch (Exception e) {
      if (e instanceof InterruptedException) {
        Thread.currentThread().interrupt();
      }
      return OptionalLong.empty();
    }
  }

  private final Map<TopicPartition, Long> beginnings = new ConcurrentHashMap<>();

  private long beginning(TopicPartition tp) throws Exception {
    Long b = beginnings.get(tp);
    if (b == null) {
      b =
          admin()
              .listOffsets(Map.of(tp, OffsetSpec.earliest()))
              .partitionResult(tp)
              .get(call.toMillis(), TimeUnit.MILLISECONDS)
              .offset();
    }
    return b;
  }

  private Map<TopicPartition, Long> endOffsets(String topic) throws Exception {
    TopicDescription d =
        admin()
            .describeTopics(List.of(topic))
            .allTopicNames()
            .get(call.toMillis(), TimeUnit.MILLISECONDS)
            .get(topic);
    Map<TopicPartition, OffsetSpec> specs = new HashMap<>();
    d.partitions()
        .forEach(p -> specs.put(new TopicPartition(topic, p.partition()), OffsetSpec.latest()));
    ListOffsetsResult r = admin().listOffsets(specs);
    Map<TopicPartition, Long> ends = new HashMap<>();
    for (var e : r.all().get(call.toMillis(), TimeUnit.MILLISECONDS).entrySet()) {
      ends.put(e.getKey(), e.getValue().offset());
    }
    return ends;
  }

  /** Moves the group's committed offsets to the end of the topic (the group must be idle). */
  public void skipToEnd(String destination, String groupId) {
    String topic = settings.topic(destination);
    try {
      ensure(destination);
      Map<TopicPartition, OffsetAndMetadata> to = new HashMap<>();
      endOffsets(topic).forEach((tp, end) -> to.put(tp, new OffsetAndMetadata(end)));
      admin()
          .alterConsumerGroupOffsets(groupId, to)
          .all()
          .get(call.toMillis(), TimeUnit.MILLISECONDS);
    } catch (Exception e) {
      if (e instanceof InterruptedException) {
        Thread.currentThread().interrupt();
      }
      throw BrokerUnavailableException.failed(
          "Kafka",
          "purge group " + groupId + " of topic " + topic + " (is a consumer of it still running?)",
          e instanceof ExecutionException ? e.getCause() : e);
    }
  }

  @Override
  public synchronized void close() {
    if (admin != null) {
      admin.close(Duration.ofSeconds(5));
      admin = null;
    }
  }
}
