package dev.once.bench.e2e;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Kafka through its clients: a topic per destination with as many partitions as Once's, created for
 * this run (and deleted after it); an idempotent producer with {@code acks=all} per relay, which
 * sends the batch and then waits for every record's acknowledgement; a consumer per worker in the
 * group, {@code max.poll.records} of one batch, offsets committed (asynchronously) after the
 * database commit.
 */
final class HandKafka implements HandBroker {
  private final String bootstrap;
  private final int partitions;
  private final int batch;
  private final String run = Long.toHexString(System.nanoTime());
  private final org.apache.kafka.clients.admin.Admin admin;
  private final java.util.Set<String> topics = java.util.concurrent.ConcurrentHashMap.newKeySet();

  HandKafka(String bootstrap, int partitions, int batch) {
    this.bootstrap = bootstrap;
    this.partitions = partitions;
    this.batch = batch;
    this.admin =
        org.apache.kafka.clients.admin.Admin.create(
            Map.of(
                org.apache.kafka.clients.admin.AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
                bootstrap));
  }

  private String topic(String destination) {
    return BenchEnv.RABBIT_PREFIX + "c." + destination + "." + run;
  }

  @Override
  public void declare(String destination, String group) {
    String topic = topic(destination);
    if (topics.add(topic)) {
      try {
        admin
            .createTopics(
                List.of(new org.apache.kafka.clients.admin.NewTopic(topic, partitions, (short) 1)))
            .all()
            .get(60, TimeUnit.SECONDS);
      } catch (Exception e) {
        throw new IllegalStateException("ceiling C: could not create topic " + topic + ": " + e, e);
      }
    }
  }

  @Override
  public void purge(String destination, String group) {
    // every run has topics of its own
  }

  @Override
  public Publisher publisher() {
    java.util.Properties p = new java.util.Properties();
    p.put("bootstrap.servers", bootstrap);
    p.put("enable.idempotence", "true");
    p.put("acks", "all");
    p.put("max.in.flight.requests.per.connection", "5");
    p.put("linger.ms", "0");
    p.put("compression.type", "none");
    org.apache.kafka.clients.producer.KafkaProducer<byte[], byte[]> producer =
        new org.apache.kafka.clients.producer.KafkaProducer<>(
            p,
            new org.apache.kafka.common.serialization.ByteArraySerializer(),
            new org.apache.kafka.common.serialization.ByteArraySerializer());
    return new Publisher() {
      @Override
      public void publishConfirmed(List<Msg> batch) throws Exception {
        List<java.util.concurrent.Future<?>> sent = new ArrayList<>(batch.size());
        for (Msg m : batch) {
          var record =
              new org.apache.kafka.clients.producer.ProducerRecord<>(
                  topic(m.destination()),
                  m.key().getBytes(java.nio.charset.StandardCharsets.UTF_8),
                  m.payload());
          record.headers().add("id", m.id().getBytes(java.nio.charset.StandardCharsets.UTF_8));
          record.headers().add("type", m.type().getBytes(java.nio.charset.StandardCharsets.UTF_8));
          sent.add(producer.send(record));
        }
        producer.flush();
        for (java.util.concurrent.Future<?> f : sent) {
          f.get(30, TimeUnit.SECONDS); // throws if the broker did not take it
        }
      }

      @Override
      public void close() {
        producer.close(Duration.ofSeconds(5));
      }
    };
  }

  @Override
  public void awaitConsumers(String destination, int consumers) throws Exception {
    KafkaGroups.awaitSettled(
        bootstrap, topic(destination), partitions, consumers, Duration.ofSeconds(60));
  }

  @Override
  public HandReceiver receiver(String destination, String group) {
    java.util.Properties p = new java.util.Properties();
    p.put("bootstrap.servers", bootstrap);
    p.put("group.id", group + "." + run);
    p.put("enable.auto.commit", "false");
    p.put("auto.offset.reset", "earliest");
    p.put("isolation.level", "read_committed");
    p.put("max.poll.records", String.valueOf(batch));
    p.put(
        "partition.assignment.strategy",
        org.apache.kafka.clients.consumer.CooperativeStickyAssignor.class.getName());
    var consumer =
        new org.apache.kafka.clients.consumer.KafkaConsumer<byte[], byte[]>(
            p,
            new org.apache.kafka.common.serialization.ByteArrayDeserializer(),
            new org.apache.kafka.common.serialization.ByteArrayDeserializer());
    consumer.subscribe(List.of(topic(destination)));
    return new HandReceiver() {
      @Override
      public List<Msg> poll(int max, long waitMillis) {
        List<Msg> got = new ArrayList<>();
        for (var r : consumer.poll(Duration.ofMillis(waitMillis))) {
          got.add(
              new Msg(
                  text(r.headers().lastHeader("id").value()),
                  destination,
                  text(r.key()),
                  text(r.headers().lastHeader("type").value()),
                  r.value(),
                  r));
        }
        return got;
      }

      @Override
      public void ack(List<Msg> messages) {
        Map<
                org.apache.kafka.common.TopicPartition,
                org.apache.kafka.clients.consumer.OffsetAndMetadata>
            offsets = new java.util.HashMap<>();
        for (Msg m : messages) {
          var r = (org.apache.kafka.clients.consumer.ConsumerRecord<?, ?>) m.handle();
          offsets.merge(
              new org.apache.kafka.common.TopicPartition(r.topic(), r.partition()),
              new org.apache.kafka.clients.consumer.OffsetAndMetadata(r.offset() + 1),
              (a, b) -> a.offset() >= b.offset() ? a : b);
        }
        consumer.commitAsync(offsets, null);
      }

      @Override
      public void close() {
        consumer.close(Duration.ofSeconds(5));
      }
    };
  }

  private static String text(byte[] bytes) {
    return new String(bytes, java.nio.charset.StandardCharsets.UTF_8);
  }

  @Override
  public void close() {
    try {
      admin.deleteTopics(topics).all().get(30, TimeUnit.SECONDS);
    } catch (Exception ignored) {
      // the bench is ending; the topics carry this run's id
    }
    admin.close(Duration.ofSeconds(5));
  }
}
