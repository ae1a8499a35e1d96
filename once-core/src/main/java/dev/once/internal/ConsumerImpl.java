package dev.once.internal;

import dev.once.Consumer;
import dev.once.ConsumerConfig;
import dev.once.spi.Delivery;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs a consumer's worker threads. Each worker owns a receiver and loops over {@link
 * BatchProcessor#process}. An {@link Error} from a batch is a crash of that worker: what it held is
 * handed back (see {@link BatchProcessor}), its receiver is closed and a fresh one replaces it, as
 * a restarted process would. A store failure is retried with backoff; when the database could not
 * be reached at all ({@link StoreOutage}) the worker keeps its receiver and the deliveries it had
 * not settled, and handles them again after the pause.
 */
final class ConsumerImpl implements Consumer {
  private static final Logger log = LoggerFactory.getLogger(ConsumerImpl.class);

  /** How long {@link #close()} waits for its workers to end, all of them together. */
  private static final java.time.Duration CLOSE_WAIT = java.time.Duration.ofSeconds(5);

  private final OnceImpl once;
  private final ConsumerConfig config;
  private final BatchProcessor processor;
  private final List<Thread> threads = new ArrayList<>();
  private dev.once.spi.Receiver callerReceiver;
  private volatile boolean running;

  ConsumerImpl(OnceImpl once, ConsumerConfig config) {
    this.once = once;
    this.config = config;
    this.processor = new BatchProcessor(once, config);
    once.transport().declare(config.destination(), config.consumerId());
  }

  @Override
  public String consumerId() {
    return config.consumerId();
  }

  @Override
  public synchronized int runOnce() {
    if (callerReceiver == null) {
      callerReceiver = newReceiver();
    }
    try {
      return processor.process(callerReceiver);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return 0;
    } catch (RuntimeException | Error e) {
      callerReceiver.close();
      callerReceiver = null;
      throw e;
    }
  }

  private dev.once.spi.Receiver newReceiver() {
    return once.transport().receiver(config.destination(), config.consumerId());
  }

  @Override
  public synchronized Consumer start() {
    if (running) {
      return this;
    }
    once.starting(
        this,
        new PoolNeeds.Need(
            "consumer "
                + config.consumerId()
                + " ("
                + config.workers()
                + (config.workers() == 1 ? " worker)" : " workers)"),
            config.workers(),
            0,
            0));
    running = true;
    for (int i = 0; i < config.workers(); i++) {
      Thread t = new Thread(this::work, "once-" + config.consumerId() + "-" + i);
      t.setDaemon(true);
      threads.add(t);
      t.start();
    }
    once.started(this);
    return this;
  }

  private void work() {
    dev.once.spi.Receiver receiver = null;
    List<Delivery> held = new ArrayList<>();
    Pause pause = new Pause();
    int outageTries = 0;
    long outageSince = 0;
    long progressAtLastCrash = -1;
    while (running) {
      try {
        if (receiver == null) {
          receiver = newReceiver();
        }
        if (held.isEmpty()) {
          processor.process(receiver, held);
        } else {
          processor.handleHeld(receiver, held);
        }
        pause.reset();
        if (outageTries > 0) {
          log.info(
              "consumer {} has a database connection again, after {} failed tries in {} ms",
              config.consumerId(),
              outageTries,
              (System.nanoTime() - outageSince) / 1_000_000);
          outageTries = 0;
        }
      } catch (InterruptedException e) {
        break;
      } catch (Throwable e) { // Error = crash of this worker; RuntimeException = store/broker down
        if (!running) {
          break;
        }
        if (!(e instanceof Error) && StoreOutage.is(e)) {
          // The database is down, restarting, full or ended the session: keep the receiver and the
          // deliveries. Closing it would hand them back to the broker, which counts each return
          // against its delivery limit; they run again as they are.
          if (outageTries++ == 0) {
            outageSince = System.nanoTime();
            log.warn(
                "consumer {} batch failed, the database connection failed; keeping {} deliveries"
                    + " and trying again, first in {}, then at most every {}: {}",
                config.consumerId(),
                held.size(),
                pause.next(),
                Pause.MAX,
                e.toString());
          } else {
            log.debug(
                "consumer {}: still no database connection (try {}): {}",
                config.consumerId(),
                outageTries,
                e.toString());
          }
          pause.take();
          continue;
        }
        held.clear();
        closeQuietly(receiver);
        receiver = null;
        if (e instanceof Error) {
          // A crash resumes at once while the worker gets somewhere: the crash counted the
          // attempt of the delivery that threw it, or a batch, a failure or a suspect's level was
          // committed since the last one. An Error with no commit since the previous one (a broken
          // client, a listener that throws on every batch) is a broken worker: pause, never spin.
          long now = processor.progress();
          boolean stuck = now == progressAtLastCrash;
          progressAtLastCrash = now;
          log.warn( // an Error of a handler: its message may quote the payload
              "consumer {} worker crashed: {}; deliveries come back{}",
              config.consumerId(),
              Failure.withoutMessage(e),
              stuck ? "; nothing committed since its last crash, again in " + pause.next() : "");
          if (stuck) {
            pause.take();
          }
        } else {
          log.warn(
              "consumer {} batch failed; again in {}: {}",
              config.consumerId(),
              pause.next(),
              e.toString());
          pause.take();
        }
      }
    }
    releaseQuietly(receiver, held);
    closeQuietly(receiver);
  }

  /**
   * A worker that stops with deliveries it kept through a database outage hands them back unrun:
   * where the transport can, without the redelivered flag that would make them suspects.
   */
  private static void releaseQuietly(dev.once.spi.Receiver receiver, List<Delivery> held) {
    if (receiver != null && !held.isEmpty()) {
      try {
        receiver.release(held);
      } catch (RuntimeException ignored) {
        // the database or broker is down: they come back when their claim or channel ends
      }
    }
  }

  private static void closeQuietly(dev.once.spi.Receiver receiver) {
    if (receiver != null) {
      try {
        receiver.close();
      } catch (RuntimeException ignored) {
        // a crashed receiver may not close cleanly; the broker takes its deliveries back anyway
      }
    }
  }

  @Override
  public void close() {
    List<Thread> toJoin;
    synchronized (this) {
      running = false;
      once.stopped(this);
      toJoin = new ArrayList<>(threads);
      threads.clear();
      if (callerReceiver != null) {
        closeQuietly(callerReceiver);
        callerReceiver = null;
      }
    }
    for (Thread t : toJoin) {
      t.interrupt();
    }
    // One bound for all of them: a worker stuck in a read of a half-open connection ends at the
    // network timeout (DatabaseTimeouts) on its own; close() does not wait for it.
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
