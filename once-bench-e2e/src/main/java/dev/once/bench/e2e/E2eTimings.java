package dev.once.bench.e2e;

import dev.once.Event;
import dev.once.OnceListener;
import dev.once.ReceivedEvent;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Commit times of an end-to-end run, by order id (the events' key, which every hop keeps): when the
 * producer's transaction committed the order, and when the last hop's transaction committed its
 * effect. Both are taken right after {@code commit()} returned, on the committing thread. Used as
 * the listener of Once's pipeline and called directly by the hand-written one.
 */
final class E2eTimings implements OnceListener {
  private final String firstDestination;
  private final String finalConsumer;
  private final boolean orderInId;
  private final Map<Long, Long> produced = new ConcurrentHashMap<>();
  private final Map<Long, Long> effected = new ConcurrentHashMap<>();
  private final Map<Long, Long> confirmed = new ConcurrentHashMap<>();
  private final Map<Long, Long> received = new ConcurrentHashMap<>();
  private final java.util.concurrent.atomic.LongAdder relayBatches =
      new java.util.concurrent.atomic.LongAdder();
  private final java.util.concurrent.atomic.LongAdder consumerTransactions =
      new java.util.concurrent.atomic.LongAdder();

  /**
   * @param firstDestination where the producers publish (only those events start the clock)
   * @param finalConsumer the consumer whose commit is the last effect of an order
   */
  E2eTimings(String firstDestination, String finalConsumer) {
    this(firstDestination, finalConsumer, false);
  }

  /**
   * As above; {@code orderInId}: the order id is the last part of the event id ({@code
   * bench-paid:n}, and the ids every hop derives from it end the same), not the key: an ordered
   * run's orders share keys ({@link KeySteps}).
   */
  E2eTimings(String firstDestination, String finalConsumer, boolean orderInId) {
    this.firstDestination = firstDestination;
    this.finalConsumer = finalConsumer;
    this.orderInId = orderInId;
  }

  private long order(String key, dev.once.EventId id) {
    if (!orderInId) {
      return Long.parseLong(key);
    }
    String v = id.value();
    return Long.parseLong(v.substring(v.lastIndexOf(':') + 1));
  }

  @Override
  public void producerCommitted(List<Event> events) {
    long now = System.nanoTime();
    for (Event e : events) {
      if (e.destination().equals(firstDestination)) {
        produced.putIfAbsent(order(e.key(), e.id()), now);
      }
    }
  }

  @Override
  public void published(List<Event> events) {
    relayBatches.increment();
    long now = System.nanoTime();
    for (Event e : events) {
      if (e.destination().equals(firstDestination)) {
        confirmed.putIfAbsent(order(e.key(), e.id()), now);
      }
    }
  }

  @Override
  public void received(List<ReceivedEvent> batch) {
    long now = System.nanoTime();
    for (ReceivedEvent e : batch) {
      if (e.consumerId().equals(finalConsumer)) {
        received.putIfAbsent(order(e.key(), e.id()), now);
      }
    }
  }

  /** The broker confirmed orders {@code ids} just now (the hand-written relay). */
  void confirmed(List<Long> ids) {
    long now = System.nanoTime();
    ids.forEach(id -> confirmed.putIfAbsent(id, now));
  }

  /** The last hop's worker took orders {@code ids} from the broker just now (hand-written). */
  void received(Iterable<Long> ids) {
    long now = System.nanoTime();
    ids.forEach(id -> received.putIfAbsent(id, now));
  }

  /**
   * The paced run's time split, p50 in ms of orders [from, to): commit→confirmed by the broker,
   * confirmed→taken by the last hop's worker, taken→effect committed (one hop; on two hops the
   * middle part holds the first hop's consumer and the second relay).
   */
  Map<String, Double> stages(String prefix, long from, long to) {
    Map<String, Double> m = new java.util.LinkedHashMap<>();
    m.put(prefix + "commit_to_confirmed_p50_ms", p50(produced, confirmed, from, to));
    m.put(prefix + "confirmed_to_received_p50_ms", p50(confirmed, received, from, to));
    m.put(prefix + "received_to_effect_p50_ms", p50(received, effected, from, to));
    return m;
  }

  /**
   * A full-speed run's ends, in ms after the first producer commit of orders [from, to): when the
   * last of them was committed by a producer, confirmed by the broker, taken by the last hop and
   * effected. A stage that ends long after the one before it is where the run waited.
   */
  Map<String, Double> ends(String prefix, long from, long to) {
    long first = Long.MAX_VALUE;
    for (long id = from; id < to; id++) {
      Long p = produced.get(id);
      if (p != null) {
        first = Math.min(first, p);
      }
    }
    Map<String, Double> m = new java.util.LinkedHashMap<>();
    m.put(prefix + "last_committed_ms", last(produced, first, from, to));
    m.put(prefix + "last_confirmed_ms", last(confirmed, first, from, to));
    m.put(prefix + "last_received_ms", last(received, first, from, to));
    m.put(prefix + "last_effect_ms", last(effected, first, from, to));
    return m;
  }

  private static double last(Map<Long, Long> times, long first, long from, long to) {
    long last = first;
    for (long id = from; id < to; id++) {
      Long t = times.get(id);
      if (t != null) {
        last = Math.max(last, t);
      }
    }
    return E2eBench.ms(last - first);
  }

  private static double p50(Map<Long, Long> a, Map<Long, Long> b, long from, long to) {
    List<Long> l = new ArrayList<>();
    for (long id = from; id < to; id++) {
      Long x = a.get(id);
      Long y = b.get(id);
      if (x != null && y != null) {
        l.add(y - x);
      }
    }
    long[] sorted = l.stream().mapToLong(Long::longValue).sorted().toArray();
    return E2eBench.ms(Percentiles.of(sorted, 50));
  }

  @Override
  public void committed(List<ReceivedEvent> events) {
    consumerTransactions.increment();
    long now = System.nanoTime();
    for (ReceivedEvent e : events) {
      if (e.consumerId().equals(finalConsumer)) {
        effected.putIfAbsent(order(e.key(), e.id()), now);
      }
    }
  }

  /** The producer committed orders [from, to) just now. */
  void produced(long from, long to) {
    long now = System.nanoTime();
    for (long id = from; id < to; id++) {
      produced.putIfAbsent(id, now);
    }
  }

  /** The last hop committed the effects of {@code orderIds} just now. */
  void effected(List<Long> orderIds) {
    long now = System.nanoTime();
    for (Long id : orderIds) {
      effected.putIfAbsent(id, now);
    }
  }

  /** Relay batches published so far (Once's relays, every hop). */
  long relayBatches() {
    return relayBatches.sum();
  }

  /** Consumer transactions committed so far (Once's consumers, every hop). */
  long consumerTransactions() {
    return consumerTransactions.sum();
  }

  /** Orders whose last effect was committed. */
  long effects() {
    return effected.size();
  }

  /** Waits until {@code n} orders have their last effect; false if the timeout ran out. */
  boolean await(long n, long timeoutNanos, Runnable check) throws InterruptedException {
    long deadline = System.nanoTime() + timeoutNanos;
    while (effected.size() < n) {
      check.run();
      if (System.nanoTime() > deadline) {
        return false;
      }
      Thread.sleep(2);
    }
    return true;
  }

  /**
   * Orders [from, to) per second, from the first producer commit to the last effect committed among
   * them.
   */
  double eps(long from, long to) {
    long first = Long.MAX_VALUE;
    long last = Long.MIN_VALUE;
    for (long id = from; id < to; id++) {
      Long p = produced.get(id);
      Long e = effected.get(id);
      if (p == null || e == null) {
        throw new IllegalStateException("order " + id + " has no commit time at both ends");
      }
      first = Math.min(first, p);
      last = Math.max(last, e);
    }
    return (to - from) / ((last - first) / 1e9);
  }

  /** Commit→effect latencies in nanoseconds of orders [from, to), sorted. */
  long[] latencies(long from, long to) {
    List<Long> l = new ArrayList<>();
    for (long id = from; id < to; id++) {
      Long p = produced.get(id);
      Long e = effected.get(id);
      if (p != null && e != null) {
        l.add(e - p);
      }
    }
    return l.stream().mapToLong(Long::longValue).sorted().toArray();
  }
}
