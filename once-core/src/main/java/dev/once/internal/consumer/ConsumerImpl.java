package dev.once.internal.consumer;

import dev.once.Consumer;
import dev.once.ConsumerConfig;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * A consumer: its worker threads ({@link Worker}), each on a receiver of its own, or the caller's
 * thread in {@link #runOnce}; all of them run batches through one {@link Pipeline}.
 */
public final class ConsumerImpl implements Consumer {
  /** How long {@link #close()} waits for its workers to end, all of them together. */
  private static final Duration CLOSE_WAIT = Duration.ofSeconds(5);

  private final ConsumerContext context;
  private final ConsumerConfig config;
  private final Pipeline pipeline;

  /** Null: none needed (see {@link Lane#of}). */
  private final Lane lane;

  private final List<Thread> threads = new ArrayList<>();
  private Settlement callerSettlement;
  private volatile boolean running;

  public ConsumerImpl(ConsumerContext context, ConsumerConfig config) {
    this.context = context;
    this.config = config;
    this.lane = Lane.of(context, config);
    this.pipeline = new Pipeline(context, config, lane);
    context.transport().declare(config.destination(), config.consumerId());
  }

  /**
   * How many deliveries the one receiving worker of an ordered consumer on a broker that orders by
   * queue asks for in one poll ({@link dev.once.spi.QueueOrder}): what its workers run in one round
   * of claims, written into the key lane in one commit.
   */
  public static int laneReceiveBatch(ConsumerConfig config) {
    return Lane.receiveBatch(config);
  }

  @Override
  public String consumerId() {
    return config.consumerId();
  }

  @Override
  public synchronized int runOnce() {
    if (callerSettlement == null) {
      callerSettlement = newSettlement();
    }
    BatchOutcome outcome;
    try {
      outcome = pipeline.receive(callerSettlement);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return 0;
    }
    if (outcome.failure() != null) {
      callerSettlement.close();
      callerSettlement = null;
      throw outcome.rethrow();
    }
    return outcome.received() + (lane == null ? 0 : lane.drain().runOnce());
  }

  private Settlement newSettlement() {
    return new Settlement(
        context.transport().receiver(config.destination(), config.consumerId()),
        config,
        context.inDatabaseAck().orElse(null),
        lane);
  }

  @Override
  public synchronized Consumer start() {
    if (running) {
      return this;
    }
    context.lifecycle().starting(this, config.workers() + (lane == null ? 0 : 1));
    running = true;
    int workers = lane == null ? config.workers() : lane.brokerWorkers();
    for (int i = 0; i < workers; i++) {
      Worker worker = new Worker(config.consumerId(), pipeline, this::newSettlement, this::running);
      Thread t = new Thread(worker, "once-" + config.consumerId() + "-" + i);
      t.setDaemon(true);
      threads.add(t);
      t.start();
    }
    if (lane != null) {
      lane.drain().start();
    }
    context.lifecycle().started(this);
    return this;
  }

  private boolean running() {
    return running;
  }

  @Override
  public void close() {
    List<Thread> toJoin;
    synchronized (this) {
      running = false;
      context.lifecycle().stopped(this);
      toJoin = new ArrayList<>(threads);
      threads.clear();
      if (callerSettlement != null) {
        callerSettlement.close();
        callerSettlement = null;
      }
    }
    toJoin.forEach(Thread::interrupt);
    join(toJoin);
    if (lane != null) {
      lane.close();
    }
  }

  /**
   * One bound for all of them: a worker stuck in a read of a half-open connection ends at the
   * network timeout (DatabaseTimeouts) on its own; close() does not wait for it.
   */
  private static void join(List<Thread> toJoin) {
    long deadline = System.nanoTime() + CLOSE_WAIT.toNanos();
    for (Thread t : toJoin) {
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        break;
      }
      try {
        t.join(Math.max(1, left / 1_000_000));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
    }
  }
}
