package dev.once.bench.e2e;

import dev.once.Event;
import dev.once.EventId;
import dev.once.OnceListener;
import dev.once.Outcome;
import dev.once.ReceivedEvent;
import dev.once.spi.Transport;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongFunction;

/**
 * {@code once bench parked-key}: what one parked key costs an ordered consumer's other keys. Each
 * run drains a backlog of {@code events} orders of distinct keys through an ordered consumer. In
 * the poisoned run the backlog holds, besides, {@code behind + 1} events of one more key (key
 * {@value #KEY}): its head, committed first, fails with a non-retryable error, so it is
 * dead-lettered in the first batch and its key parks; its later events, spread evenly among the
 * orders, wait behind it. The clean run has the orders alone. Then, the pipeline idle (and the key
 * still parked), orders of new keys are committed one per transaction at a paced rate. Figures are
 * for the other keys only: their drain rate (events/s from the consumer's start to their last
 * effect) and their paced commit→effect p50/p99. Runs alternate clean and poisoned, {@code rounds}
 * of each.
 */
public final class ParkedKeyBench {
  /** The key that parks. Numeric: the warehouse handler reads its order id from the key. */
  static final String KEY = "0";

  private static final String CLEAR =
      """
      DELETE FROM once_parked_key WHERE consumer_group = 'bench';
      DELETE FROM once_dead_letter_action WHERE consumer_id = 'bench';
      DELETE FROM once_dead_letter WHERE consumer_id = 'bench';
      DELETE FROM once_attempt WHERE consumer_id = 'bench'
      """;

  /** One run's figures. */
  record Run(
      boolean poisoned, double eps, double pacedRate, double p50Ms, double p99Ms, long waiting) {
    Map<String, Object> json() {
      Map<String, Object> j = new LinkedHashMap<>();
      j.put("poisoned", poisoned);
      j.put("other_keys_eps", BenchReport.round(eps));
      j.put("other_keys_p50_ms", p50Ms);
      j.put("other_keys_p99_ms", p99Ms);
      j.put("parked_key_waiting", waiting);
      return j;
    }
  }

  private final BenchEnv env;
  private final BenchSettings s;
  private final int behind;
  private final PrintStream progress;

  private ParkedKeyBench(BenchEnv env, int behind, PrintStream progress) {
    this.env = env;
    this.s = env.settings();
    this.behind = behind;
    this.progress = progress;
  }

  /**
   * {@code rounds} pairs of runs, clean first in odd rounds and poisoned first in even ones; {@code
   * latencyRate} 0 paces every latency run at half the first clean run's drain rate.
   */
  public static BenchResult run(
      BenchEnv env, int rounds, int behind, double latencyRate, PrintStream progress)
      throws Exception {
    if (!env.transportName().equals("table")) {
      throw new IllegalArgumentException(
          "once bench parked-key runs on the table queue (ordered consumers), not on "
              + env.transportName());
    }
    ParkedKeyBench bench = new ParkedKeyBench(env, behind, progress);
    List<Run> clean = new ArrayList<>();
    List<Run> poisoned = new ArrayList<>();
    double rate = latencyRate;
    for (int round = 0; round < rounds; round++) {
      for (boolean poison :
          round % 2 == 0 ? new boolean[] {false, true} : new boolean[] {true, false}) {
        Run r = bench.once(poison, rate);
        (poison ? poisoned : clean).add(r);
        rate = r.pacedRate(); // the first run's, for every run after it
      }
    }
    return bench.report(clean, poisoned, rate);
  }

  private BenchResult report(List<Run> clean, List<Run> poisoned, double rate) {
    Map<String, Object> j = new LinkedHashMap<>();
    j.put("events", s.events());
    j.put("parked_key_behind", behind);
    j.put("latency_rate", BenchReport.round(rate));
    j.put("clean_eps_median", median(clean, Run::eps));
    j.put("poisoned_eps_median", median(poisoned, Run::eps));
    j.put("clean_p50_ms_median", median(clean, Run::p50Ms));
    j.put("poisoned_p50_ms_median", median(poisoned, Run::p50Ms));
    j.put("clean_p99_ms_median", median(clean, Run::p99Ms));
    j.put("poisoned_p99_ms_median", median(poisoned, Run::p99Ms));
    j.put("eps_ratios", ratios(poisoned, clean, Run::eps));
    j.put("p99_ratios", ratios(poisoned, clean, Run::p99Ms));
    j.put("runs", (clean.size() + poisoned.size()) + " (clean, poisoned alternating)");
    j.put("clean", clean.stream().map(Run::json).toList());
    j.put("poisoned", poisoned.stream().map(Run::json).toList());
    j.put("workers", s.workers());
    j.put("batch", s.batch());
    j.put("database", env.description());
    j.put("machine", BenchReport.machine());
    boolean parked = poisoned.stream().allMatch(r -> r.waiting() == behind);
    return new BenchResult.Fields(j, 24, parked);
  }

  private static double median(List<Run> runs, java.util.function.ToDoubleFunction<Run> f) {
    double[] v = runs.stream().mapToDouble(f).sorted().toArray();
    int n = v.length;
    return BenchReport.round3(n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2);
  }

  /** Poisoned / clean, pair by pair. */
  private static List<Double> ratios(
      List<Run> poisoned, List<Run> clean, java.util.function.ToDoubleFunction<Run> f) {
    List<Double> r = new ArrayList<>();
    for (int i = 0; i < poisoned.size(); i++) {
      r.add(BenchReport.round3(f.applyAsDouble(poisoned.get(i)) / f.applyAsDouble(clean.get(i))));
    }
    return r;
  }

  /** One run; {@code rate} 0: the paced run at half this run's drain rate. */
  private Run once(boolean poison, double rate) throws Exception {
    try (Transport transport = env.openTransport()) {
      reset(transport);
      OtherKeys others = new OtherKeys();
      try (Pipeline p = new Pipeline(env.dataSource(), transport, s, others)) {
        EventId head = EventId.of("bench-parked", 0);
        long stride = Math.max(1, s.events() / behind);
        LongFunction<Event> keyEvents =
            id ->
                poison && id % stride == 0 && id / stride <= behind ? keyEvent(id / stride) : null;
        if (poison) {
          p.publish(keyEvent(0));
        }
        Producers.fullSpeed(
            (from, to) -> p.produce(from, to, keyEvents),
            s.producers(),
            s.producerBatch(),
            1,
            s.events());
        long start = System.nanoTime();
        p.startConsumer(e -> e.id().equals(head));
        p.startRelays();
        others.await(s.events(), s);
        double eps = s.events() / ((System.nanoTime() - start) / 1e9);
        double paced = rate > 0 ? rate : eps / 2;
        long n = Math.round(paced * s.latencySeconds());
        long[] nanos = new long[0];
        if (n > 0) {
          p.timings().recording(true);
          Producers.paced(p, s, s.events() + 1L, n, paced);
          others.await(s.events() + n, s);
          nanos = p.timings().latencies();
        }
        long waiting =
            BenchTables.count(
                env.dataSource(),
                "SELECT count(*) FROM once_queue WHERE consumer_group = 'bench' AND event_key = '"
                    + KEY
                    + "'");
        Run r =
            new Run(
                poison,
                eps,
                paced,
                ms(Percentiles.of(nanos, 50)),
                ms(Percentiles.of(nanos, 99)),
                waiting);
        progress.printf(
            "  %s: other keys %.0f events/s, paced at %.0f/s p50 %.2f ms, p99 %.2f ms;"
                + " key %s: %d waiting (load %.1f)%n",
            poison ? "poisoned" : "clean   ",
            eps,
            paced,
            r.p50Ms(),
            r.p99Ms(),
            KEY,
            waiting,
            java.lang.management.ManagementFactory.getOperatingSystemMXBean()
                .getSystemLoadAverage());
        return r;
      } finally {
        reset(transport);
      }
    }
  }

  private void reset(Transport transport) {
    env.reset(transport);
    BenchTables.run(env.dataSource(), CLEAR);
  }

  /** The {@code k}th event of the key that parks (0: its head). */
  private static Event keyEvent(long k) {
    return Event.of(
        EventId.of("bench-parked", k), BenchTables.IN, KEY, "BenchPaid", Pipeline.payload(0));
  }

  private static double ms(long nanos) {
    return Math.round(nanos / 10_000.0) / 100.0;
  }

  /** Counts the PROCESSED deliveries of every key but {@link #KEY}. */
  private static final class OtherKeys implements OnceListener {
    private final AtomicLong processed = new AtomicLong();

    @Override
    public void outcome(ReceivedEvent event, Outcome outcome, Duration sinceReceived) {
      if (outcome == Outcome.PROCESSED && !KEY.equals(event.key())) {
        processed.incrementAndGet();
      }
    }

    void await(long n, BenchSettings s) throws InterruptedException {
      long deadline = System.nanoTime() + s.timeoutSeconds() * 1_000_000_000L;
      while (processed.get() < n) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException(
              "the other keys' events processed: only "
                  + processed.get()
                  + " of "
                  + n
                  + " in "
                  + s.timeoutSeconds()
                  + " s (--timeout)");
        }
        Thread.sleep(2);
      }
    }
  }
}
