package dev.once.app.proof;

import dev.once.scenario.WarehouseCheck;
import dev.once.scenario.WarehouseVerdict;
import dev.once.testkit.CrashPoint;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import javax.sql.DataSource;

/**
 * The verify loop: worker processes and a producer process; kills in phases, one phase per kind
 * (SIGKILL at a random moment, then each crash window, where the child halts itself); every dead
 * child is started again; at the end, the check, read from the database.
 */
final class VerifyRun {
  /** The kinds of kill, in the order their phases run. */
  static final List<String> KINDS =
      List.of(
          CrashPoint.PRODUCER_BEFORE_COMMIT.label(), // first: while there is surely more to produce
          Slot.SIGKILL,
          CrashPoint.CONSUMER_BEFORE_TRANSACTION.label(),
          CrashPoint.CONSUMER_AFTER_MARKER.label(),
          CrashPoint.CONSUMER_AFTER_EFFECT_BEFORE_COMMIT.label(),
          CrashPoint.CONSUMER_AFTER_COMMIT_BEFORE_ACK.label(),
          CrashPoint.RELAY_AFTER_PUBLISH_BEFORE_MARK_SENT.label());

  private static final long WINDOW_GIVE_UP_NANOS = 10_000_000_000L;
  private static final long STARVED_NANOS = 1_500_000_000L;
  private static final long TICK_MILLIS = 50;

  /** How long a dead worker's deliveries stay invisible on the table queue. */
  static final Duration VISIBILITY = Duration.ofSeconds(2);

  static final Duration SETTLE = VISIBILITY.plusSeconds(1);

  /** How often a worker prints its counts (when they changed). */
  private static final Duration STATS_EVERY = Duration.ofMillis(200);

  private final VerifySettings settings;
  private final DataSource dataSource;
  private final PrintWriter progress;
  private final SplittableRandom random;
  private final List<Slot> workers = new ArrayList<>();
  private final Slot producer;
  private final Map<String, WindowResult> results = new LinkedHashMap<>();
  private final List<String> unexpectedExits = new ArrayList<>();
  private final OrderRelease orders;
  private final HeldDeliveries held;
  private long sentAllowance;
  private long lastStarvedNanos;

  VerifyRun(VerifySettings settings, DataSource dataSource, PrintWriter progress) {
    this.settings = settings;
    this.dataSource = dataSource;
    this.progress = progress;
    this.random = new SplittableRandom(settings.seed());
    for (int i = 0; i < settings.workers(); i++) {
      workers.add(
          new Slot("worker-" + i, false, workerArgs(), settings.childEnv(), settings.logs()));
    }
    this.producer =
        new Slot("producer", true, producerArgs(), settings.childEnv(), settings.logs());
    KINDS.forEach(k -> results.put(k, new WindowResult(k)));
    this.orders = new OrderRelease(settings.events(), KINDS.size());
    this.held = settings.queueInDatabase() ? new HeldDeliveries(dataSource) : null;
  }

  private List<String> workerArgs() {
    List<String> args = new ArrayList<>(List.of("worker", "--control-stdin"));
    args.addAll(List.of("--stats-every-ms", Long.toString(STATS_EVERY.toMillis())));
    args.addAll(List.of("--visibility-timeout", Long.toString(VISIBILITY.toSeconds())));
    args.addAll(settings.childArgs());
    return args;
  }

  private List<String> producerArgs() {
    List<String> args = new ArrayList<>(List.of("produce", "--control-stdin", "--from", "1"));
    args.addAll(List.of("--events", Integer.toString(settings.events())));
    args.addAll(List.of("--rate", Double.toString(settings.rate())));
    int schema = settings.childArgs().indexOf("--schema");
    if (schema >= 0) { // the producer writes into the namespace the workers and the check read
      args.addAll(settings.childArgs().subList(schema, schema + 2));
    }
    return args; // the database: ONCE_DB in its environment
  }

  /** Runs everything and returns the verdict and, per kind of kill, what it came to. */
  VerifyResult run() throws InterruptedException {
    long start = System.nanoTime();
    workers.forEach(Slot::start);
    startProducer();
    try {
      int[] perKind = split(settings.kills(), KINDS.size());
      for (int p = 0; p < KINDS.size(); p++) {
        orders.startPhase(p);
        phase(KINDS.get(p), perKind[p]);
      }
      orders.all();
      release();
      WarehouseVerdict verdict = awaitCheck(start);
      double seconds = (System.nanoTime() - start) / 1e9;
      stopAll(); // each worker prints its final counts as it stops
      return new VerifyResult(verdict, results, totals(), seconds, unexpectedExits);
    } finally {
      stopAll();
    }
  }

  private void stopAll() {
    allSlots().forEach(s -> s.child.stop(10));
  }

  private void startProducer() {
    producer.start();
    producer.child.allow(orders.allowed());
  }

  /** Tells the producer how far it may go, releasing more when a waiting child starves. */
  private void release() {
    long now = System.nanoTime();
    boolean starved =
        allSlots().stream()
            .anyMatch(s -> s.armedWindow != null && now - s.armedAtNanos > STARVED_NANOS);
    if (starved && now - lastStarvedNanos > STARVED_NANOS) {
      orders.starved();
      lastStarvedNanos = now;
    }
    if (orders.allowed() > sentAllowance) {
      sentAllowance = orders.allowed();
      producer.child.allow(sentAllowance);
    }
  }

  /** {@code total} spread over {@code parts}, the first ones getting the remainder. */
  static int[] split(int total, int parts) {
    int[] split = new int[parts];
    for (int i = 0; i < parts; i++) {
      split[i] = total / parts + (i < total % parts ? 1 : 0);
    }
    return split;
  }

  private void phase(String kind, int kills) throws InterruptedException {
    if (kills == 0) {
      return;
    }
    WindowResult result = results.get(kind);
    long[] before = totals();
    long start = System.nanoTime();
    progress.printf("  phase %-38s %d kills (orders released %d)%n", kind, kills, orders.allowed());
    progress.flush();
    int[] done = {0};
    try {
      while (done[0] < kills) {
        tick(kind, done);
        release();
        arm(kind, kills - done[0]);
        Thread.sleep(TICK_MILLIS);
      }
      allSlots().forEach(Slot::disarm); // none should be armed: armed + done <= kills
    } catch (PhaseSkipped skipped) {
      progress.println("    the producer finished before this window came: not reached");
    }
    if (!kind.equals(CrashPoint.PRODUCER_BEFORE_COMMIT.label())) {
      settle(kind, done);
    }
    long[] after = totals();
    result.redeliveries += after[1] - before[1];
    result.duplicates += after[3] - before[3];
    result.seconds += (System.nanoTime() - start) / 1e9;
  }

  /**
   * Waits until the last kill's deliveries are back, restarting what dies meanwhile, so that their
   * redeliveries count for this phase. On the table queue, until every delivery taken before the
   * phase ended was acknowledged or taken again, and then for two of the workers' stats periods (a
   * worker prints its counts at most one period after they change); at most, and on a broker or
   * after a relay's death (what it published comes again from the outbox, not from a held delivery)
   * always, for the queue's visibility timeout and a margin. Not after the producer's phase: a
   * producer halted before its commit held no delivery, and what it had not committed it produces
   * again when it is restarted.
   */
  private void settle(String kind, int[] done) throws InterruptedException {
    long until = System.nanoTime() + SETTLE.toNanos();
    boolean relay = kind.equals(CrashPoint.RELAY_AFTER_PUBLISH_BEFORE_MARK_SENT.label());
    Map<Long, Integer> taken = held == null || relay ? null : held.taken();
    boolean back = false;
    while (System.nanoTime() < until) {
      tick(kind, done);
      release();
      if (!back && taken != null && held.allBack(taken)) {
        back = true;
        until = Math.min(until, System.nanoTime() + 2 * STATS_EVERY.toNanos());
      }
      Thread.sleep(TICK_MILLIS);
    }
  }

  /** Restarts what died and counts the deaths; SIGKILLs what is due. */
  private void tick(String phase, int[] done) {
    for (Slot slot : allSlots()) {
      if (slot.finished) {
        continue;
      }
      if (!slot.child.alive()) {
        died(slot, phase, done);
      } else if (slot.armedWindow != null && System.nanoTime() > slot.deadlineNanos) {
        slot.child.kill();
        WindowResult r = results.get(slot.armedWindow);
        if (Slot.SIGKILL.equals(slot.armedWindow)) {
          r.kills++;
        } else {
          r.notReached++;
        }
        done[0] += slot.armedWindow.equals(phase) ? 1 : 0;
        restart(slot);
      }
    }
  }

  private void died(Slot slot, String phase, int[] done) {
    String halted = slot.child.haltedAt();
    if (halted != null) {
      progress.printf("    %s halted at %s%n", slot.child.name(), halted);
      results.get(halted).kills++;
      done[0] += halted.equals(phase) ? 1 : 0;
    } else if (slot.producer && slot.child.exitCode() == 0) {
      slot.finished = true;
      if (slot.armedWindow != null && slot.armedWindow.equals(phase)) {
        results.get(phase).notReached++;
        done[0]++;
      }
      return;
    } else {
      unexpectedExits.add(slot.child.name() + " exited " + slot.child.exitCode());
    }
    restart(slot);
  }

  private void restart(Slot slot) {
    if (slot == producer) {
      startProducer();
    } else {
      slot.start();
    }
  }

  /**
   * Arms ready, unarmed children for this phase, never more than the kills left: a window may be
   * armed in several workers at once, a SIGKILL is aimed at half the workers at most.
   */
  private void arm(String kind, int left) {
    boolean producerKind = kind.equals(CrashPoint.PRODUCER_BEFORE_COMMIT.label());
    List<Slot> candidates = producerKind ? List.of(producer) : workers;
    long armed = candidates.stream().filter(s -> s.armedWindow != null).count();
    long maxArmed =
        Slot.SIGKILL.equals(kind) ? Math.min(left, Math.max(1, workers.size() / 2)) : left;
    for (Slot s : candidates) {
      if (armed >= maxArmed) {
        return;
      }
      if (!s.finished && s.armedWindow == null && s.child.ready()) {
        progress.printf("    arming %s at %s%n", s.child.name(), kind);
        armOne(s, kind);
        armed++;
      }
    }
    if (producerKind && producer.finished && left > 0) {
      results.get(kind).notReached += left; // nothing left to produce: the window cannot come
      throw new PhaseSkipped();
    }
  }

  private void armOne(Slot s, String kind) {
    long now = System.nanoTime();
    if (Slot.SIGKILL.equals(kind)) {
      s.arm(kind, 0, now + 200_000_000L + random.nextLong(1_300_000_000L));
    } else {
      int after = random.nextInt(3); // one of the first passes: traffic may be a trickle

      s.arm(kind, after, now + WINDOW_GIVE_UP_NANOS);
    }
  }

  /** Raised when a phase cannot go on (the producer finished before its window came). */
  private static final class PhaseSkipped extends RuntimeException {
    private static final long serialVersionUID = 1L;

    PhaseSkipped() {
      super(null, null, false, false);
    }
  }

  private WarehouseVerdict awaitCheck(long start) throws InterruptedException {
    long deadline = System.nanoTime() + settings.timeout().toNanos();
    long lastPrint = 0;
    while (true) {
      tick("", new int[1]);
      WarehouseVerdict v = WarehouseCheck.run(dataSource, settings.events());
      long now = System.nanoTime();
      if (v.ok() || cannotChange(v) || now > deadline) {
        return v;
      }
      if (now - lastPrint > 2_000_000_000L) {
        progress.printf(
            "  %5.1fs  orders %d/%d  dispatch jobs %d  notifications %d  pending %d%n",
            (now - start) / 1e9,
            v.counts().orders(),
            settings.events(),
            v.counts().dispatchJobs(),
            v.counts().notifications(),
            v.counts().pending());
        progress.flush();
        lastPrint = now;
      }
      Thread.sleep(500);
    }
  }

  /**
   * A failing verdict nothing can turn any more: every order is in, and on the table queue (whose
   * rows, held or not, the check counts; a delivery leaves it only once its transaction committed)
   * no outbox row and no delivery waits. The effects still missing have nothing left to bring them;
   * waiting for the timeout would only put off the failure. On a broker the check cannot see what
   * the queues hold, so there the timeout decides.
   */
  private boolean cannotChange(WarehouseVerdict v) {
    WarehouseVerdict.Counts c = v.counts();
    return settings.queueInDatabase()
        && c.orders() == settings.events()
        && c.outboxPending() == 0
        && c.queueDepth() == 0;
  }

  private List<Slot> allSlots() {
    List<Slot> all = new ArrayList<>(workers);
    all.add(producer);
    return all;
  }

  /** Received, redelivered, processed, duplicate: summed over every worker that ever ran. */
  private long[] totals() {
    long[] sum = new long[4];
    for (Slot s : workers) {
      long[] v = s.stats();
      for (int i = 0; i < sum.length; i++) {
        sum[i] += v[i];
      }
    }
    return sum;
  }
}
