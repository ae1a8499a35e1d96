package dev.once.kafka.internal;

import dev.once.Event;
import dev.once.kafka.KafkaSettings;
import dev.once.spi.PublishResult;
import java.time.Duration;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * The relay's side: one idempotent producer ({@code acks=all}, {@code enable.idempotence}, bounded
 * {@code delivery.timeout.ms}, no transactions) shared by every relay of the transport. A batch is
 * sent in list order and each event is confirmed only when its send completed. After an event of a
 * key failed, no later event of that key in the batch is sent, and one that was already sent is
 * reported failed as well, so the relay publishes it again after the failed one and the later row
 * never counts as sent before the earlier one.
 *
 * <p>Only an error about the record itself is a refusal the relay charges ({@link #refusal}); a
 * disconnected or unreachable cluster, a retriable error the producer gave up on, no answer within
 * the confirm timeout and an event held back behind another are losses, published again uncharged.
 */
public final class Publisher implements AutoCloseable {
  private final KafkaSettings settings;
  private final Topics topics;
  private volatile KafkaProducer<byte[], byte[]> producer;

  /**
   * Flushes the producer off the relays' threads: {@code flush()} waits for the records' answers
   * (up to {@code delivery.timeout.ms} while the cluster is gone), and a relay waits for its own
   * records no longer than its confirm timeout.
   */
  private final ExecutorService flusher =
      Executors.newSingleThreadExecutor(
          r -> {
            Thread t = new Thread(r, "once-kafka-flush");
            t.setDaemon(true);
            return t;
          });

  /** A flush is asked for and has not begun: the records sent until it begins go with it. */
  private final AtomicBoolean flushAsked = new AtomicBoolean();

  public Publisher(KafkaSettings settings, Topics topics) {
    this.settings = settings;
    this.topics = topics;
  }

  /** The producer properties, also for tests that check them. */
  public static Properties properties(KafkaSettings settings) {
    Properties p = Clients.common(settings, "once-relay");
    p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
    p.put(ProducerConfig.ACKS_CONFIG, "all");
    p.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, "5");
    long delivery = settings.deliveryTimeout().toMillis();
    long request = Math.min(30_000, Math.max(1_000, delivery / 2));
    // The linger gathers a batch's records into few requests while the relay sends them; the
    // relay then flushes (publish), so the batch's last records do not wait for it.
    p.put(ProducerConfig.LINGER_MS_CONFIG, "5");
    p.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, String.valueOf(request));
    p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, String.valueOf(delivery));
    p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, String.valueOf(Math.min(delivery, 10_000)));
    p.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, "none");
    p.putAll(settings.extra()); // the user's word is the last
    return p;
  }

  private KafkaProducer<byte[], byte[]> producer() {
    KafkaProducer<byte[], byte[]> p = producer;
    if (p == null) {
      synchronized (this) {
        if (producer == null) {
          producer = new KafkaProducer<>(properties(settings));
        }
        p = producer;
      }
    }
    return p;
  }

  public PublishResult publish(List<Event> batch, Duration confirmTimeout) {
    int n = batch.size();
    BitSet confirmed = new BitSet(n);
    Map<Integer, String> failures = new HashMap<>();
    BitSet lost = new BitSet(n);
    BitSet unroutable = new BitSet(n); // no topic yet: waits for a consumer group, uncharged
    List<Future<RecordMetadata>> sent = new ArrayList<>(n);
    Map<String, Integer> failedKey = new HashMap<>(); // key → first failed index
    String unreachable = null; // a send blocked on metadata: do not block again for every event
    for (int i = 0; i < n; i++) {
      Event e = batch.get(i);
      String topic = settings.topic(e.destination());
      Integer earlier = e.key() == null ? null : failedKey.get(orderKey(e));
      if (earlier != null) {
        failures.put(i, afterFailure(e, earlier));
        lost.set(i);
        sent.add(null);
        continue;
      }
      String refused = unreachable;
      boolean loss = unreachable != null;
      try {
        if (refused == null && !topics.exists(topic)) {
          refused =
              "unroutable: topic "
                  + topic
                  + " does not exist (no consumer group of destination "
                  + e.destination()
                  + " was declared)";
          unroutable.set(i);
        }
      } catch (RuntimeException ex) {
        refused = "cluster unreachable: " + ex.getMessage();
        loss = true;
      }
      Future<RecordMetadata> f = null;
      if (refused == null) {
        try {
          f = producer().send(RecordCodec.encode(topic, e));
          if (f.isDone()) { // failed at once: too large, closed producer…
            f.get();
          }
        } catch (ExecutionException ex) {
          // send() blocked max.block.ms on metadata and failed: do not block again per event
          refused = reason(ex.getCause());
          loss = !refusal(ex.getCause());
          f = null;
          if (ex.getCause() instanceof org.apache.kafka.common.errors.TimeoutException) {
            unreachable = "not sent: " + refused;
          }
        } catch (RuntimeException ex) {
          refused = reason(ex);
          loss = !refusal(ex);
          f = null;
          if (ex instanceof org.apache.kafka.common.errors.TimeoutException) {
            unreachable = "not sent: " + refused;
          }
        } catch (InterruptedException ex) {
          Thread.currentThread().interrupt();
          refused = "interrupted";
          loss = true;
          f = null;
        }
      }
      if (refused != null) {
        failures.put(i, refused);
        if (loss) {
          lost.set(i);
        }
        if (e.key() != null) {
          failedKey.putIfAbsent(orderKey(e), i);
        }
      }
      sent.add(f);
    }
    long deadline = System.nanoTime() + confirmTimeout.toNanos();
    if (sentAny(sent)) {
      flush();
    }
    for (int i = 0; i < n; i++) {
      Future<RecordMetadata> f = sent.get(i);
      if (f == null) {
        continue;
      }
      try {
        f.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
        confirmed.set(i);
      } catch (ExecutionException ex) {
        failures.put(i, reason(ex.getCause()));
        if (!refusal(ex.getCause())) {
          lost.set(i);
        }
      } catch (TimeoutException ex) {
        failures.put(i, "no acknowledgement within " + confirmTimeout);
        lost.set(i);
      } catch (InterruptedException ex) {
        Thread.currentThread().interrupt();
        failures.put(i, "interrupted while waiting for the acknowledgement");
        lost.set(i);
      }
    }
    // No overtaking: a later event of a key counts as sent only if every earlier one did.
    Map<String, Integer> firstFailure = new HashMap<>();
    for (int i = 0; i < n; i++) {
      if (batch.get(i).key() == null) {
        continue;
      }
      String key = orderKey(batch.get(i));
      Integer earlier = firstFailure.get(key);
      if (earlier != null && confirmed.get(i)) {
        confirmed.clear(i);
        failures.put(i, afterFailure(batch.get(i), earlier));
        lost.set(i);
      } else if (earlier == null && !confirmed.get(i)) {
        firstFailure.put(key, i);
      }
    }
    return new PublishResult(confirmed, failures, lost, unroutable);
  }

  private static boolean sentAny(List<Future<RecordMetadata>> sent) {
    for (Future<RecordMetadata> f : sent) {
      if (f != null) {
        return true;
      }
    }
    return false;
  }

  /**
   * Sends what the linger still holds now: the batch is complete, and waiting for the linger would
   * only delay its last records (every record of a paced trickle) by its length. The flush runs on
   * {@link #flusher}; a flush asked for while one waits to begin is that one (it covers every
   * record sent before it begins). The relay reads its confirms as before, within its confirm
   * timeout.
   */
  private void flush() {
    if (!flushAsked.compareAndSet(false, true)) {
      return;
    }
    try {
      flusher.execute(
          () -> {
            flushAsked.set(false);
            KafkaProducer<byte[], byte[]> p = producer; // none made here: close may have run
            try {
              if (p != null) {
                p.flush();
              }
            } catch (RuntimeException e) {
              // interrupted by close, or a closed producer: each record's future says so
            }
          });
    } catch (RejectedExecutionException e) {
      flushAsked.set(false); // closed: the records' futures say what became of them
    }
  }

  /**
   * Whether {@code t} is the broker's (or the client's) error about the record itself — too large,
   * not serializable, a topic it may not write or that is invalid — which the relay charges. Every
   * other failure (a retriable error the producer gave up on, a disconnect, a timeout, a producer
   * closing, credentials the cluster refused) says nothing about the record.
   */
  static boolean refusal(Throwable t) {
    if (t instanceof org.apache.kafka.common.errors.RetriableException
        || t instanceof org.apache.kafka.common.errors.AuthenticationException
        || t instanceof org.apache.kafka.common.errors.ClusterAuthorizationException) {
      return false;
    }
    return t instanceof org.apache.kafka.common.errors.ApiException
        || t instanceof org.apache.kafka.common.errors.SerializationException;
  }

  /** Order is kept per key within a destination (one topic). */
  private static String orderKey(Event e) {
    return e.destination() + "\u0000" + e.key();
  }

  private static String afterFailure(Event e, int earlier) {
    return "held back: an earlier event of key "
        + e.key()
        + " (batch index "
        + earlier
        + ") failed";
  }

  private static String reason(Throwable t) {
    String m = t.getMessage();
    return t.getClass().getSimpleName() + (m == null ? "" : ": " + m);
  }

  @Override
  public synchronized void close() {
    flusher.shutdownNow();
    if (producer != null) {
      producer.close(Duration.ofSeconds(5));
      producer = null;
    }
  }
}
