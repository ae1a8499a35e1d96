package dev.once.rabbitmq.internal;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.GetResponse;
import com.rabbitmq.client.Recoverable;
import com.rabbitmq.client.RecoveryListener;
import dev.once.BrokerUnavailableException;
import dev.once.spi.BrokerDeadLetter;
import dev.once.spi.BrokerDeadLetterReader;
import dev.once.spi.Delivery;
import dev.once.spi.MessageDecoder;
import java.io.IOException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Reads a group's dead-letter queue {@code <queue>.dead-letter} with basic.get on a channel of its
 * own, without auto-ack. Closing returns what it read and did not acknowledge with one basic.nack
 * (requeue), then closes the channel. A queue that does not exist reads as empty.
 */
public final class RabbitDeadLetterReader implements BrokerDeadLetterReader {
  private final Channel channel;
  private final String destination;
  private final String queue;
  private final String safeUri;
  private final AtomicLong generation = new AtomicLong();
  private final boolean missing;
  private long held;

  public RabbitDeadLetterReader(Connections connections, String destination, String queue) {
    this.channel = connections.consumeChannel();
    this.destination = destination;
    this.queue = queue;
    this.safeUri = connections.safeUri();
    ((Recoverable) channel).addRecoveryListener(recovery());
    this.missing = !exists();
  }

  private boolean exists() {
    try {
      channel.queueDeclarePassive(queue);
      return true;
    } catch (IOException e) {
      return false; // 404: never declared, so nothing in it (the channel is closed by the broker)
    }
  }

  private RecoveryListener recovery() {
    return new RecoveryListener() {
      @Override
      public void handleRecovery(Recoverable recoverable) {}

      @Override
      public void handleRecoveryStarted(Recoverable recoverable) {
        generation.incrementAndGet(); // the tags read so far mean nothing on the new channel
      }
    };
  }

  @Override
  public BrokerDeadLetter next() {
    if (missing) {
      return null;
    }
    GetResponse got;
    try {
      got = channel.basicGet(queue, false);
    } catch (IOException | RuntimeException e) {
      throw new BrokerUnavailableException(
          "RabbitMQ at " + safeUri, "failed to read '" + queue + "': " + e, e);
    }
    if (got == null) {
      return null;
    }
    held++;
    AMQP.BasicProperties props = got.getProps();
    boolean redelivered = got.getEnvelope().isRedeliver();
    Delivery d =
        MessageDecoder.decode(
            MessageCodec.raw(destination, props, got.getBody()),
            MessageCodec.deliveryCount(props, redelivered),
            redelivered,
            new Handle(generation.get(), got.getEnvelope().getDeliveryTag()));
    return Deaths.of(d, props.getHeaders());
  }

  @Override
  public void acknowledge(BrokerDeadLetter message) {
    Handle h = (Handle) message.delivery().handle();
    if (h.generation() != generation.get()) {
      throw new BrokerUnavailableException(
          "RabbitMQ at " + safeUri,
          "lost the channel reading '" + queue + "': the message stays there, read it again",
          null);
    }
    try {
      channel.basicAck(h.tag(), false);
      held--;
    } catch (IOException | RuntimeException e) {
      throw new BrokerUnavailableException(
          "RabbitMQ at " + safeUri, "failed to acknowledge on '" + queue + "'", e);
    }
  }

  @Override
  public void close() {
    try {
      if (held > 0 && channel.isOpen()) {
        // nack, not reject: RabbitMQ 4.3+ counts a rejected message's return as a failed delivery
        channel.basicNack(0, true, true);
      }
    } catch (IOException | RuntimeException ignored) {
      // closing the channel below returns them as well
    }
    Topology.closeQuietly(channel);
  }
}
