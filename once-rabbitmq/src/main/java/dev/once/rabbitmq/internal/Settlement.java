package dev.once.rabbitmq.internal;

import com.rabbitmq.client.Channel;
import java.io.IOException;
import java.util.List;
import java.util.NavigableSet;
import java.util.concurrent.ConcurrentSkipListSet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Acks and requeues on one channel. Keeps the tags delivered and not yet settled, so that a run of
 * acks that covers every unsettled tag up to some tag goes out as one {@code basic.ack(multiple)}
 * without touching a delivery still buffered or held for a delayed nack. A failure to send means
 * the channel is gone: the broker returns those deliveries itself, so it is logged and dropped.
 */
final class Settlement {
  private static final Logger log = LoggerFactory.getLogger(Settlement.class);

  private final Channel channel;
  private final NavigableSet<Long> unsettled = new ConcurrentSkipListSet<>();

  Settlement(Channel channel) {
    this.channel = channel;
  }

  void delivered(long tag) {
    unsettled.add(tag);
  }

  void forgetAll() {
    unsettled.clear();
  }

  synchronized void ack(List<Long> tags) {
    if (tags.isEmpty()) {
      return;
    }
    List<Long> sorted = tags.stream().sorted().toList();
    int covered = contiguousPrefix(sorted);
    try {
      if (covered > 1) {
        channel.basicAck(sorted.get(covered - 1), true);
      }
      for (int i = covered > 1 ? covered : 0; i < sorted.size(); i++) {
        channel.basicAck(sorted.get(i), false);
      }
      unsettled.removeAll(sorted);
    } catch (IOException | RuntimeException e) {
      log.info("ack of {} deliveries dropped, the channel is gone: {}", tags.size(), e.toString());
    }
  }

  /** How many of {@code sorted} are exactly the oldest unsettled tags, in order. */
  private int contiguousPrefix(List<Long> sorted) {
    int n = 0;
    for (long tag : unsettled) {
      if (n == sorted.size() || sorted.get(n) != tag) {
        break;
      }
      n++;
    }
    return n;
  }

  synchronized void requeue(List<Long> tags) {
    try {
      for (long tag : tags) {
        channel.basicNack(tag, false, true);
      }
      unsettled.removeAll(tags);
    } catch (IOException | RuntimeException e) {
      log.info("nack of {} deliveries dropped, the channel is gone: {}", tags.size(), e.toString());
    }
  }

  /** A message that can never be processed: to the dead-letter exchange, not back to the queue. */
  synchronized void reject(long tag) {
    try {
      channel.basicReject(tag, false);
    } catch (IOException | RuntimeException e) {
      log.info("reject dropped, the channel is gone: {}", e.toString());
    }
  }
}
