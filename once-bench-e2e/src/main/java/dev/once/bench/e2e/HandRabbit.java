package dev.once.bench.e2e;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.BuiltinExchangeType;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.DefaultConsumer;
import com.rabbitmq.client.Envelope;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/** RabbitMQ through the AMQP client: one connection to publish, one to consume. */
final class HandRabbit implements HandBroker {
  private static final String PREFIX = BenchEnv.RABBIT_PREFIX + "c.";
  private final Connection pub;
  private final Connection sub;
  private final int prefetch;

  HandRabbit(String uri, int prefetch) throws Exception {
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
