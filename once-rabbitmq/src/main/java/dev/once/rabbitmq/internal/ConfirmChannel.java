package dev.once.rabbitmq.internal;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.ConfirmListener;
import com.rabbitmq.client.ShutdownSignalException;
import dev.once.Event;
import dev.once.spi.PublishResult;
import java.io.IOException;
import java.time.Duration;
import java.util.Date;
import java.util.List;

/**
 * A channel in confirm mode that publishes one batch at a time (it is borrowed by one relay thread
 * at a time). Each message is published persistent and mandatory; acks, nacks and returns arrive on
 * the connection's thread and land in the current batch's {@link BatchConfirms}. A channel that
 * lost its connection or timed out is discarded, so no late answer reaches a later batch.
 */
final class ConfirmChannel {
  private final Channel channel;
  private volatile BatchConfirms current;
  private volatile boolean broken;
  private volatile ShutdownSignalException closeReason;

  ConfirmChannel(Channel channel) throws IOException {
    this.channel = channel;
    channel.confirmSelect();
    channel.addConfirmListener(
        new ConfirmListener() {
          @Override
          public void handleAck(long seqNo, boolean multiple) {
            BatchConfirms b = current;
            if (b != null) {
              b.acked(seqNo, multiple);
            }
          }

          @Override
          public void handleNack(long seqNo, boolean multiple) {
            BatchConfirms b = current;
            if (b != null) {
              b.nacked(seqNo, multiple);
            }
          }
        });
    channel.addReturnListener(
        r -> {
          BatchConfirms b = current;
          if (b != null) {
            b.returned(r.getProperties().getMessageId(), r.getReplyCode(), r.getReplyText());
          }
        });
    channel.addShutdownListener(this::lost);
  }

  private void lost(ShutdownSignalException cause) {
    broken = true;
    closeReason = cause;
    BatchConfirms b = current;
    if (b != null) {
      b.channelLost(cause.getMessage(), closedByBroker(cause));
    }
  }

  /**
   * Whether the broker closed this channel (a channel error about what was published on it: 404 a
   * missing exchange, 403, 406), as opposed to losing the connection (a hard error, an I/O failure,
   * missed heartbeats) or a close by the client: only the former is an answer about the messages.
   */
  static boolean closedByBroker(ShutdownSignalException cause) {
    return !cause.isHardError()
        && !cause.isInitiatedByApplication()
        && cause.getReason() instanceof AMQP.Channel.Close;
  }

  PublishResult publish(
      List<Event> batch, List<String> exchanges, MessageCodec codec, Duration timeout)
      throws InterruptedException {
    return publish(batch, exchanges, null, codec, timeout);
  }

  /** {@code routingKeys}: one per event, or null for each event's own (its key when it fits). */
  PublishResult publish(
      List<Event> batch,
      List<String> exchanges,
      List<String> routingKeys,
      MessageCodec codec,
      Duration timeout)
      throws InterruptedException {
    BatchConfirms confirms = new BatchConfirms(batch.size());
    current = confirms;
    try {
      Date now = new Date(); // one timestamp for the batch's messages
      // the whole batch into the connection's buffer, then one socket write (not one a message)
      BatchFlushes.hold();
      try {
        for (int i = 0; i < batch.size(); i++) {
          if (broken) {
            confirms.notSent(i, "channel closed while publishing: " + closeReason);
            continue;
          }
          String routingKey =
              routingKeys == null ? MessageCodec.routingKey(batch.get(i)) : routingKeys.get(i);
          send(
              confirms,
              i,
              batch.get(i),
              exchanges.get(i),
              routingKey,
              codec.properties(batch.get(i), now));
        }
      } finally {
        flush(confirms);
      }
      PublishResult result = confirms.await(timeout, batch.size());
      broken |= confirms.timedOut();
      return result;
    } finally {
      current = null;
    }
  }

  private void send(
      BatchConfirms confirms,
      int index,
      Event event,
      String exchange,
      String routingKey,
      AMQP.BasicProperties props) {
    long seqNo = channel.getNextPublishSeqNo();
    confirms.sent(seqNo, index, event.id().value());
    try {
      channel.basicPublish(exchange, routingKey, true, props, event.payload());
    } catch (IOException | RuntimeException e) {
      broken = true;
      confirms.channelLost("publish failed: " + e, false);
    }
  }

  /** Sends what the batch buffered; a failed write loses the batch's unanswered messages. */
  private void flush(BatchConfirms confirms) {
    try {
      BatchFlushes.release();
    } catch (IOException e) {
      broken = true;
      confirms.channelLost("publish failed: " + e, false);
    }
  }

  /** Whether a later batch may use this channel. */
  boolean usable() {
    return !broken && channel.isOpen();
  }

  /** Whether the broker closed the channel because an exchange was missing (404). */
  boolean closedForMissingExchange() {
    ShutdownSignalException reason = closeReason;
    return reason != null
        && !reason.isHardError()
        && reason.getReason() instanceof AMQP.Channel.Close close
        && close.getReplyCode() == 404;
  }

  void close() {
    Topology.closeQuietly(channel);
  }
}
