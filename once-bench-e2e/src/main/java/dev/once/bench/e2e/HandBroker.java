package dev.once.bench.e2e;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.BuiltinExchangeType;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.DefaultConsumer;
import com.rabbitmq.client.Envelope;
import dev.once.Event;
import dev.once.EventId;
import dev.once.spi.Delivery;
import dev.once.spi.PublishResult;
import dev.once.spi.Receiver;
import dev.once.tablequeue.TableQueueTransport;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;

/**
 * The broker as the hand-written pipeline (ceiling C) uses it: the same transport Once runs on,
 * through its own client. RabbitMQ through the AMQP client directly (a durable topic exchange per
 * destination, a quorum queue per group bound with {@code #}, as Once declares them; persistent
 * messages, a batch published then its confirms awaited; {@code basic.qos} of two batches, manual
 * acks); the table queue through its enqueue / claim / ack.
 */
interface HandBroker extends AutoCloseable {
  /** A message as the hand-written code sees it; {@code handle} settles it. */
  record Msg(
      String id, String destination, String key, String type, byte[] payload, Object handle) {
    Event event() {
      return new Event(new EventId(id), destination, key, type, payload, Map.of());
    }
  }

  /** One relay's way to publish: the whole batch, returning when every message is confirmed. */
  interface Publisher extends AutoCloseable {
    void publishConfirmed(List<Msg> batch) throws Exception;

    @Override
    void close();
  }

  /** One worker's receiver. */
  interface HandReceiver extends AutoCloseable {
    /** Up to {@code max} messages, waiting up to {@code waitMillis} for the first. */
    List<Msg> poll(int max, long waitMillis) throws InterruptedException;

    void ack(List<Msg> messages) throws IOException;

    @Override
    void close();
  }

  void declare(String destination, String group);

  void purge(String destination, String group);

  Publisher publisher() throws IOException;

  HandReceiver receiver(String destination, String group) throws IOException;

  @Override
  void close();

  static HandBroker open(BenchEnv env, BenchSettings s) throws Exception {
    return switch (env.transportName()) {
      case "rabbitmq" -> new Rabbit(env.amqp(), s.prefetch());
      case "kafka" -> new Kafka(env.bootstrap(), env.kafkaPartitions(), s.batch());
      default -> new Table(env.dataSource());
    };
  }

  /** The table queue: enqueue in a transaction of its own, claim with SKIP LOCKED, ack deletes. */
  final class Table implements HandBroker {
    private final TableQueueTransport queue;

    Table(DataSource dataSource) {
      this.queue = TableQueueTransport.create(dataSource);
    }

    @Override
    public void declare(String destination, String group) {
      queue.declare(destination, group);
    }

    @Override
    public void purge(String destination, String group) {
      queue.purge(destination, group);
    }

    @Override
    public Publisher publisher() {
      return new Publisher() {
        @Override
        public void publishConfirmed(List<Msg> batch) {
          PublishResult r =
              queue.publish(batch.stream().map(Msg::event).toList(), Duration.ofSeconds(30));
          if (!r.failures().isEmpty()) {
            throw new IllegalStateException("ceiling C: the table queue refused " + r.failures());
          }
        }

        @Override
        public void close() {}
      };
    }

    @Override
    public HandReceiver receiver(String destination, String group) {
      Receiver r = queue.receiver(destination, group);
      return new HandReceiver() {
        @Override
        public List<Msg> poll(int max, long waitMillis) throws InterruptedException {
          List<Msg> got = new ArrayList<>();
          for (Delivery d : r.poll(max, Duration.ofMillis(waitMillis))) {
            Event e = d.event();
            got.add(new Msg(e.id().value(), e.destination(), e.key(), e.type(), e.payload(), d));
          }
          return got;
        }

        @Override
        public void ack(List<Msg> messages) {
          r.ack(messages.stream().map(m -> (Delivery) m.handle()).toList());
        }

        @Override
        public void close() {
          r.close();
        }
      };
    }

    @Override
    public void close() {
      queue.close();
    }
  }

  /**
   * Kafka through its clients: a topic per destination with as many partitions as Once's, created
   * for this run (and deleted after it); an idempotent producer with {@code acks=all} per relay,
   * which sends the batch and then waits for every record's acknowledgement; a consumer per worker
   * in the group, {@code max.poll.records} of one batch, offsets committed (asynchronously) after
   * the database commit.
   */
  final class Kafka implements HandBroker {
    private final String bootstrap;
    private final int partitions;
    private final int batch;
    private final String run = Long.toHexString(System.nanoTime());
    private final org.apache.kafka.clients.admin.Admin admin;
    private final java.util.Set<String> topics = java.util.concurrent.ConcurrentHashMap.newKeySet();

    Kafka(String bootstrap, int partitions, int batch) {
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
                  List.of(
                      new org.apache.kafka.clients.admin.NewTopic(topic, partitions, (short) 1)))
              .all()
              .get(60, TimeUnit.SECONDS);
        } catch (Exception e) {
          throw new IllegalStateException(
              "ceiling C: could not create topic " + topic + ": " + e, e);
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
            record
                .headers()
                .add("type", m.type().getBytes(java.nio.charset.StandardCharsets.UTF_8));
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

  /** RabbitMQ through the AMQP client: one connection to publish, one to consume. */
  final class Rabbit implements HandBroker {
    private static final String PREFIX = BenchEnv.RABBIT_PREFIX + "c.";
    private final Connection pub;
    private final Connection sub;
    private final int prefetch;

    Rabbit(String uri, int prefetch) throws Exception {
      ConnectionFactory f = new ConnectionFactory();
      f.setUri(uri);
      if (java.net.URI.create(uri).getPath().equals("/")) {
        f.setVirtualHost("/");
      }
      this.pub = BenchEnv.connect(f, uri, "once-bench-c-publish");
      this.sub = BenchEnv.connect(f, uri, "once-bench-c-consume");
      this.prefetch = prefetch;
    }

    private static String exchange(String destination) {
      return PREFIX + destination;
    }

    private static String queue(String destination, String group) {
      return PREFIX + destination + "." + group;
    }

    @Override
    public void declare(String destination, String group) {
      try (Channel ch = pub.createChannel()) {
        ch.exchangeDeclare(exchange(destination), BuiltinExchangeType.TOPIC, true);
        ch.queueDeclare(
            queue(destination, group), true, false, false, Map.of("x-queue-type", "quorum"));
        ch.queueBind(queue(destination, group), exchange(destination), "#");
      } catch (Exception e) {
        throw new IllegalStateException("ceiling C: declare failed: " + e, e);
      }
    }

    @Override
    public void purge(String destination, String group) {
      try (Channel ch = pub.createChannel()) {
        ch.queuePurge(queue(destination, group));
      } catch (Exception e) {
        throw new IllegalStateException("ceiling C: purge failed: " + e, e);
      }
    }

    @Override
    public Publisher publisher() throws IOException {
      Channel ch = pub.createChannel();
      ch.confirmSelect();
      return new Publisher() {
        @Override
        public void publishConfirmed(List<Msg> batch) throws Exception {
          for (Msg m : batch) {
            AMQP.BasicProperties props =
                new AMQP.BasicProperties.Builder()
                    .deliveryMode(2)
                    .messageId(m.id())
                    .type(m.type())
                    .build();
            ch.basicPublish(exchange(m.destination()), m.key(), true, props, m.payload());
          }
          ch.waitForConfirmsOrDie(30_000);
        }

        @Override
        public void close() {
          closeQuietly(ch);
        }
      };
    }

    @Override
    public HandReceiver receiver(String destination, String group) throws IOException {
      Channel ch = sub.createChannel();
      ch.basicQos(prefetch);
      BlockingQueue<Msg> buffer = new LinkedBlockingQueue<>();
      ch.basicConsume(
          queue(destination, group),
          false,
          new DefaultConsumer(ch) {
            @Override
            public void handleDelivery(
                String tag, Envelope envelope, AMQP.BasicProperties props, byte[] body) {
              buffer.add(
                  new Msg(
                      props.getMessageId(),
                      destination,
                      envelope.getRoutingKey(),
                      props.getType(),
                      body,
                      envelope.getDeliveryTag()));
            }
          });
      return new HandReceiver() {
        @Override
        public List<Msg> poll(int max, long waitMillis) throws InterruptedException {
          List<Msg> got = new ArrayList<>(max);
          Msg first = buffer.poll(waitMillis, TimeUnit.MILLISECONDS);
          if (first != null) {
            got.add(first);
            buffer.drainTo(got, max - 1);
          }
          return got;
        }

        @Override
        public void ack(List<Msg> messages) throws IOException {
          long last = 0;
          for (Msg m : messages) {
            last = Math.max(last, (Long) m.handle());
          }
          ch.basicAck(last, true); // one worker per channel, in order: all up to the last
        }

        @Override
        public void close() {
          closeQuietly(ch);
        }
      };
    }

    private static void closeQuietly(Channel ch) {
      try {
        if (ch.isOpen()) {
          ch.close();
        }
      } catch (Exception ignored) {
        // the bench is ending
      }
    }

    @Override
    public void close() {
      try {
        pub.close();
        sub.close();
      } catch (Exception ignored) {
        // the bench is ending
      }
    }
  }
}
