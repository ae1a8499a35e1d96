package dev.once.bench.e2e;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Kafka through its clients, as a careful team would write it: a topic per destination with as many
 * partitions as Once's, created for this run (and deleted after it). A relay's producer is
 * idempotent with {@code acks=all} and lingers 5 ms, as Once's: it sends the batch, flushes (the
 * batch is complete: its last records need not wait for the linger) and waits for every record's
 * acknowledgement, so a batch goes out in one produce request instead of the several that a linger
 * of 0 sent while the relay was still adding records. A consumer per worker in the group, {@code
 * max.poll.records} of one batch, auto-commit off: the offsets of a batch become committable only
 * after its database commit ({@link HandReceiver#ack}), and are committed asynchronously at most
 * every {@link #COMMIT_INTERVAL} (Once's default), synchronously when partitions are revoked and at
 * close. A restart redoes at most that interval's deliveries, which the markers make duplicates;
 * none is lost, as no offset is committed before its batch's effects are.
 */
final class HandKafka implements HandBroker {
  /** How often a consumer commits the offsets of the batches it has committed to the database. */
  static final Duration COMMIT_INTERVAL = Duration.ofMillis(200);

  private final String bootstrap;
  private final int partitions;
  private final int batch;
  private final java.util.function.LongSupplier nanoTime;
  private final String run = Long.toHexString(System.nanoTime());
  private final org.apache.kafka.clients.admin.Admin admin;
  private final java.util.Set<String> topics = java.util.concurrent.ConcurrentHashMap.newKeySet();
  private final List<org.apache.kafka.clients.producer.KafkaProducer<?, ?>> producers =
      new java.util.concurrent.CopyOnWriteArrayList<>();
  private final java.util.concurrent.atomic.LongAdder commits =
      new java.util.concurrent.atomic.LongAdder();

  HandKafka(String bootstrap, int partitions, int batch) {
    this(bootstrap, partitions, batch, System::nanoTime);
  }

  /** As above; {@code nanoTime}: the consumers' clock for their commit interval (tests set it). */
  HandKafka(String bootstrap, int partitions, int batch, java.util.function.LongSupplier nanoTime) {
    this.nanoTime = nanoTime;
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
    p.put("linger.ms", "5"); // the batch's sends gather; the flush below sends them at once
    p.put("compression.type", "none");
    org.apache.kafka.clients.producer.KafkaProducer<byte[], byte[]> producer =
        new org.apache.kafka.clients.producer.KafkaProducer<>(
            p,
            new org.apache.kafka.common.serialization.ByteArraySerializer(),
            new org.apache.kafka.common.serialization.ByteArraySerializer());
    producers.add(producer);
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

  /** The Kafka group id of {@code group}'s consumers in this run. */
  String groupId(String group) {
    return group + "." + run;
  }

  @Override
  public HandReceiver receiver(String destination, String group) {
    java.util.Properties p = new java.util.Properties();
    p.put("bootstrap.servers", bootstrap);
    p.put("group.id", groupId(group));
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
    HandOffsets offsets = new HandOffsets(consumer, commits, COMMIT_INTERVAL, nanoTime);
    consumer.subscribe(List.of(topic(destination)), offsets);
    return new HandReceiver() {
      @Override
      public List<Msg> poll(int max, long waitMillis) {
        offsets.commitIfDue(); // an idle consumer still commits what its last batches processed
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
        for (Msg m : messages) {
          offsets.processed((org.apache.kafka.clients.consumer.ConsumerRecord<?, ?>) m.handle());
        }
        offsets.commitIfDue();
      }

      @Override
      public void close() {
        try {
          offsets.commitAtClose();
        } finally {
          consumer.close(Duration.ofSeconds(5));
        }
      }
    };
  }

  /** Produce requests the relays' producers sent so far, and offset commits the consumers made. */
  @Override
  public Map<String, Long> counts() {
    double requests = 0;
    for (var producer : producers) {
      for (var e : producer.metrics().entrySet()) {
        if (e.getKey().name().equals("request-total")
            && e.getKey().group().equals("producer-metrics")) {
          requests += ((Number) e.getValue().metricValue()).doubleValue();
        }
      }
    }
    return Map.of("relay_requests", Math.round(requests), "offset_commits", commits.sum());
  }

  private static String text(byte[] bytes) {
    return new String(bytes, java.nio.charset.StandardCharsets.UTF_8);
  }

  @Override
  public void close() {
    producers.clear();
    try {
      admin.deleteTopics(topics).all().get(30, TimeUnit.SECONDS);
    } catch (Exception ignored) {
      // the bench is ending; the topics carry this run's id
    }
    admin.close(Duration.ofSeconds(5));
  }
}
