package dev.once.internal;

import dev.once.Consumer;
import dev.once.ConsumerConfig;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs a consumer's worker threads. Each worker owns a receiver and loops over {@link
 * BatchProcessor#process}. An {@link Error} from a batch is a crash of that worker: its receiver is
 * closed without acknowledging anything (so the broker hands the deliveries out again) and a fresh
 * one replaces it, as a restarted process would. A store failure is retried with backoff.
 */
final class ConsumerImpl implements Consumer {
  private static final Logger log = LoggerFactory.getLogger(ConsumerImpl.class);

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
    Backoff backoff = new Backoff();
    while (running) {
      try {
        if (receiver == null) {
          receiver = newReceiver();
        }
        processor.process(receiver);
        backoff.reset();
      } catch (InterruptedException e) {
        break;
      } catch (Throwable e) { // Error = crash of this worker; RuntimeException = store/broker down
        if (!running) {
          break;
        }
        closeQuietly(receiver);
        receiver = null;
        if (e instanceof Error) {
          log.warn( // an Error of a handler: its message may quote the payload
              "consumer {} worker crashed: {}; deliveries come back",
              config.consumerId(),
              Failure.withoutMessage(e));
        } else {
          log.warn(
              "consumer {} batch failed; again in {}: {}",
              config.consumerId(),
              backoff.next(),
              e.toString());
          backoff.pause();
        }
      }
    }
    closeQuietly(receiver);
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
    for (Thread t : toJoin) {
      try {
        t.join(5_000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
