package dev.once.bench.e2e;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.DefaultConsumer;
import com.rabbitmq.client.Envelope;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.NavigableSet;
import java.util.concurrent.ConcurrentSkipListSet;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Ceiling B for RabbitMQ: the broker alone, no database. {@code relays} publishers on their own
 * confirm channels keep up to {@code relayBatch} persistent messages each unconfirmed (a sliding
 * window, confirms handled asynchronously) into one durable quorum queue, as Once's topology has;
 * {@code workers} consumers with basic.qos(prefetch) acknowledge every delivery manually.
 */
final class CeilingRabbit {
  private static final String QUEUE = BenchEnv.RABBIT_PREFIX + "ceiling";

  private CeilingRabbit() {}

  static double run(String uri, BenchSettings s) throws Exception {
    ConnectionFactory f = new ConnectionFactory();
    f.setUri(uri);
    if (java.net.URI.create(uri).getPath().equals("/")) {
      f.setVirtualHost("/"); // as RabbitTransport reads 'amqp://host/': the vhost '/'
    }
    try (Connection pub = BenchEnv.connect(f, uri, "once-bench-ceiling-publish");
        Connection sub = BenchEnv.connect(f, uri, "once-bench-ceiling-consume")) {
      try (Channel admin = pub.createChannel()) {
        admin.queueDelete(QUEUE);
        admin.queueDeclare(QUEUE, true, false, false, Map.of("x-queue-type", "quorum"));
      }
      CountDownLatch done = new CountDownLatch(1);
      AtomicLong acked = new AtomicLong();
      long start = System.nanoTime();
      for (int i = 0; i < s.workers(); i++) {
        consume(sub.createChannel(), s, acked, done);
      }
      AtomicLong next = new AtomicLong(1);
      Threads.run(s.relays(), i -> publish(pub.createChannel(), s, next));
      if (!done.await(s.timeoutSeconds(), TimeUnit.SECONDS)) {
        throw new IllegalStateException(
            "ceiling B: only " + acked.get() + " of " + s.events() + " acknowledged in time");
      }
      double eps = s.events() / ((System.nanoTime() - start) / 1e9);
      try (Channel admin = pub.createChannel()) {
        admin.queueDelete(QUEUE);
      }
      return eps;
    }
  }

  private static void publish(Channel ch, BenchSettings s, AtomicLong next) throws Exception {
    Semaphore window = new Semaphore(s.relayBatch());
    NavigableSet<Long> outstanding = new ConcurrentSkipListSet<>();
    AtomicLong nacked = new AtomicLong();
    ch.confirmSelect();
    ch.addConfirmListener(
        (seq, multiple) -> window.release(settle(outstanding, seq, multiple)),
        (seq, multiple) -> {
          nacked.incrementAndGet();
          window.release(settle(outstanding, seq, multiple));
        });
    for (long id = next.getAndIncrement(); id <= s.events(); id = next.getAndIncrement()) {
      window.acquire();
      outstanding.add(ch.getNextPublishSeqNo());
      AMQP.BasicProperties props =
          new AMQP.BasicProperties.Builder()
              .deliveryMode(2)
              .messageId("bench-paid:" + id)
              .type("BenchPaid")
              .build();
      ch.basicPublish(
          "", QUEUE, true, props, Pipeline.payload(id).getBytes(StandardCharsets.UTF_8));
    }
    window.acquire(s.relayBatch()); // every message confirmed
    if (nacked.get() > 0) {
      throw new IllegalStateException("ceiling B: the broker nacked " + nacked.get() + " messages");
    }
    ch.close();
  }

  private static int settle(NavigableSet<Long> outstanding, long seq, boolean multiple) {
    if (!multiple) {
      return outstanding.remove(seq) ? 1 : 0;
    }
    NavigableSet<Long> head = outstanding.headSet(seq, true);
    int n = 0;
    while (head.pollFirst() != null) {
      n++;
    }
    return n;
  }

  private static void consume(Channel ch, BenchSettings s, AtomicLong acked, CountDownLatch done)
      throws Exception {
    ch.basicQos(s.prefetch());
    ch.basicConsume(
        QUEUE,
        false,
        new DefaultConsumer(ch) {
          @Override
          public void handleDelivery(
              String tag, Envelope envelope, AMQP.BasicProperties props, byte[] body)
              throws java.io.IOException {
            ch.basicAck(envelope.getDeliveryTag(), false);
            if (acked.incrementAndGet() == s.events()) {
              done.countDown();
            }
          }
        });
  }
}
