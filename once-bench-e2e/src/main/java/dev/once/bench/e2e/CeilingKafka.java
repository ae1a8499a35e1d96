package dev.once.bench.e2e;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Ceiling B for Kafka: the broker alone, no database. A topic of its own with as many partitions as
 * Once's bench topics; {@code relays} idempotent producers ({@code acks=all}) keep up to {@code
 * relayBatch} records each unacknowledged (a sliding window, acknowledgements handled in the send
 * callback); {@code workers} consumers of one group, auto-commit off, commit the offsets of every
 * poll. The records carry what Once's carry: the event key (the order id), an id and a type header,
 * the same payload. The clock starts once every consumer has its partitions (the group's join is
 * not the broker's throughput) and stops when all records were consumed.
 */
final class CeilingKafka {
  private CeilingKafka() {}

  static double run(String bootstrap, int partitions, BenchSettings s) throws Exception {
    String topic = BenchEnv.RABBIT_PREFIX + "ceiling." + Long.toHexString(System.nanoTime());
    try (Admin admin =
        Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
      admin
          .createTopics(List.of(new NewTopic(topic, partitions, (short) 1)))
          .all()
          .get(60, TimeUnit.SECONDS);
      try {
        return measure(bootstrap, topic, partitions, s);
      } finally {
        try {
          admin.deleteTopics(List.of(topic)).all().get(30, TimeUnit.SECONDS);
        } catch (Exception ignored) {
          // the bench is ending; the topic carries this run's id
        }
      }
    }
  }

  private static double measure(String bootstrap, String topic, int partitions, BenchSettings s)
      throws Exception {
    int consumers = s.workers();
    AtomicLong consumed = new AtomicLong();
    AtomicInteger assigned = new AtomicInteger();
    AtomicInteger withPartitions = new AtomicInteger();
    AtomicReference<Throwable> failure = new AtomicReference<>();
    CountDownLatch done = new CountDownLatch(1);
    CountDownLatch stopped = new CountDownLatch(consumers);
    String group = topic + ".group";
    List<Thread> threads = new ArrayList<>();
    for (int i = 0; i < consumers; i++) {
      Thread t =
          new Thread(
              () -> {
                try {
                  consume(bootstrap, topic, group, s, consumed, assigned, withPartitions, done);
                } catch (Throwable e) {
                  failure.compareAndSet(null, e);
                  done.countDown();
                } finally {
                  stopped.countDown();
                }
              },
              "once-bench-ceiling-kafka-consumer-" + i);
      t.setDaemon(true);
      threads.add(t);
      t.start();
    }
    try {
      long joinDeadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(s.timeoutSeconds());
      int members = Math.min(consumers, partitions);
      while (assigned.get() < partitions || withPartitions.get() < members) {
        if (failure.get() != null || System.nanoTime() > joinDeadline) {
          throw new IllegalStateException(
              "ceiling B: the consumers did not get the topic's "
                  + partitions
                  + " partitions in time ("
                  + assigned.get()
                  + " assigned)",
              failure.get());
        }
        Thread.sleep(20); // polling a counter the consumer threads move, not a fixed wait
      }
      long start = System.nanoTime();
      AtomicLong next = new AtomicLong(1);
      Threads.run(s.relays(), i -> produce(bootstrap, topic, s, next));
      if (!done.await(s.timeoutSeconds(), TimeUnit.SECONDS)) {
        throw new IllegalStateException(
            "ceiling B: only " + consumed.get() + " of " + s.events() + " consumed in time");
      }
      if (failure.get() != null) {
        throw new IllegalStateException("ceiling B: a consumer failed", failure.get());
      }
      return s.events() / ((System.nanoTime() - start) / 1e9);
    } finally {
      done.countDown();
      stopped.await(30, TimeUnit.SECONDS);
    }
  }

  private static void produce(String bootstrap, String topic, BenchSettings s, AtomicLong next)
      throws Exception {
    Properties p = new Properties();
    p.put("bootstrap.servers", bootstrap);
    p.put("enable.idempotence", "true");
    p.put("acks", "all");
    p.put("max.in.flight.requests.per.connection", "5");
    p.put("linger.ms", "0");
    p.put("compression.type", "none");
    Semaphore window = new Semaphore(s.relayBatch());
    AtomicReference<Exception> failed = new AtomicReference<>();
    byte[] type = "BenchPaid".getBytes(StandardCharsets.UTF_8);
    try (KafkaProducer<byte[], byte[]> producer =
        new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer())) {
      for (long id = next.getAndIncrement(); id <= s.events(); id = next.getAndIncrement()) {
        window.acquire();
        ProducerRecord<byte[], byte[]> record =
            new ProducerRecord<>(
                topic,
                Long.toString(id).getBytes(StandardCharsets.UTF_8),
                Pipeline.payload(id).getBytes(StandardCharsets.UTF_8));
        record
            .headers()
            .add("once-event-id", ("bench-paid:" + id).getBytes(StandardCharsets.UTF_8));
        record.headers().add("once-type", type);
        producer.send(
            record,
            (metadata, e) -> {
              if (e != null) {
                failed.compareAndSet(null, e);
              }
              window.release();
            });
      }
      window.acquire(s.relayBatch()); // every record acknowledged
    }
    if (failed.get() != null) {
      throw new IllegalStateException("ceiling B: the broker refused a record", failed.get());
    }
  }

  private static void consume(
      String bootstrap,
      String topic,
      String group,
      BenchSettings s,
      AtomicLong consumed,
      AtomicInteger assigned,
      AtomicInteger withPartitions,
      CountDownLatch done) {
    Properties p = new Properties();
    p.put("bootstrap.servers", bootstrap);
    p.put("group.id", group);
    p.put("enable.auto.commit", "false");
    p.put("auto.offset.reset", "earliest");
    p.put("max.poll.records", String.valueOf(Math.max(s.batch(), 500)));
    KafkaConsumer<byte[], byte[]> consumer =
        new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer());
    try {
      int[] mine = {0};
      consumer.subscribe(
          List.of(topic),
          new ConsumerRebalanceListener() {
            @Override
            public void onPartitionsRevoked(Collection<TopicPartition> revoked) {
              change(-revoked.size());
            }

            @Override
            public void onPartitionsAssigned(Collection<TopicPartition> added) {
              change(added.size());
            }

            @Override
            public void onPartitionsLost(Collection<TopicPartition> lost) {
              change(-lost.size());
            }

            private void change(int n) {
              int before = mine[0];
              mine[0] += n;
              assigned.addAndGet(n);
              if (before == 0 && mine[0] > 0) {
                withPartitions.incrementAndGet();
              } else if (before > 0 && mine[0] == 0) {
                withPartitions.decrementAndGet();
              }
            }
          });
      while (done.getCount() > 0) {
        Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
        int n = 0;
        for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(100))) {
          offsets.put(
              new TopicPartition(r.topic(), r.partition()), new OffsetAndMetadata(r.offset() + 1));
          n++;
        }
        if (n > 0) {
          consumer.commitAsync(offsets, null);
          if (consumed.addAndGet(n) >= s.events()) {
            done.countDown();
          }
        }
      }
    } finally {
      consumer.close(Duration.ofSeconds(5));
    }
  }
}
