package dev.once.internal.consumer;

import dev.once.internal.Failure;
import dev.once.internal.Pause;
import dev.once.internal.StoreOutage;
import dev.once.spi.Delivery;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One worker thread of a consumer: runs batches through the {@link Pipeline} on a receiver of its
 * own and decides from each {@link BatchOutcome} what comes next. An {@link Error} is a crash of
 * the worker: its receiver is closed and a fresh one replaces it, as a restarted process would. A
 * store failure is tried again after a pause; when the database could not be reached at all ({@link
 * StoreOutage}) the worker keeps its receiver and the deliveries it had not settled, and runs them
 * again after the pause.
 */
final class Worker implements Runnable {
  private static final Logger log = LoggerFactory.getLogger(Worker.class);

  private final String consumerId;
  private final Pipeline pipeline;
  private final Supplier<Settlement> newSettlement;
  private final BooleanSupplier running;
  private final Pause pause = new Pause();
  private Settlement settlement;
  private List<Delivery> held = List.of();
  private int outageTries;
  private long outageSince;
  private long progressAtLastCrash = -1;

  Worker(
      String consumerId,
      Pipeline pipeline,
      Supplier<Settlement> newSettlement,
      BooleanSupplier running) {
    this.consumerId = consumerId;
    this.pipeline = pipeline;
    this.newSettlement = newSettlement;
    this.running = running;
  }

  @Override
  public void run() {
    try {
      while (running.getAsBoolean()) {
        Throwable failure = runBatch();
        if (failure == null) {
          recovered();
        } else if (running.getAsBoolean()) {
          failed(failure);
        }
      }
    } catch (InterruptedException e) {
      // Consumer.close(): the loop ends
    } finally {
      if (settlement != null) {
        settlement.releaseAndClose(held);
      }
    }
  }

  /** Runs one batch: a new one, or the one kept through an outage. Returns what ended it early. */
  private Throwable runBatch() throws InterruptedException {
    try {
      if (settlement == null) {
        settlement = newSettlement.get();
      }
      BatchOutcome outcome =
          held.isEmpty() ? pipeline.receive(settlement) : pipeline.run(settlement, held);
      held = outcome.unsettled();
      return outcome.failure();
    } catch (RuntimeException | Error e) { // no receiver: the broker is down
      return e;
    }
  }

  private void recovered() {
    pause.reset();
    if (outageTries > 0) {
      log.info(
          "consumer {} has a database connection again, after {} failed tries in {} ms",
          consumerId,
          outageTries,
          (System.nanoTime() - outageSince) / 1_000_000);
      outageTries = 0;
    }
  }

  private void failed(Throwable e) {
    if (!(e instanceof Error) && StoreOutage.is(e)) {
      outage(e);
      return;
    }
    held = List.of();
    if (settlement != null) {
      settlement.close();
      settlement = null;
    }
    if (e instanceof Error) {
      crashed(e);
    } else {
      log.warn("consumer {} batch failed; again in {}: {}", consumerId, pause.next(), e.toString());
      pause.take();
    }
  }

  /**
   * The database is down, restarting, full or ended the session: the receiver and the deliveries
   * are kept. Closing it would hand them back to the broker, which counts each return against its
   * delivery limit; they run again as they are.
   */
  private void outage(Throwable e) {
    if (outageTries++ == 0) {
      outageSince = System.nanoTime();
      log.warn(
          "consumer {} batch failed, the database connection failed; keeping {} deliveries"
              + " and trying again, first in {}, then at most every {}: {}",
          consumerId,
          held.size(),
          pause.next(),
          Pause.MAX,
          e.toString());
    } else {
      log.debug(
          "consumer {}: still no database connection (try {}): {}",
          consumerId,
          outageTries,
          e.toString());
    }
    pause.take();
  }

  /**
   * A crash resumes at once while the worker gets somewhere: the crash counted the attempt of the
   * delivery that threw it, or a batch, a failure or a suspect's level was committed since the last
   * one. An Error with no commit since the previous one (a broken client, a listener that throws on
   * every batch) is a broken worker: pause, never spin.
   */
  private void crashed(Throwable e) {
    long now = pipeline.progress();
    boolean stuck = now == progressAtLastCrash;
    progressAtLastCrash = now;
    log.warn( // an Error of a handler: its message may quote the payload
        "consumer {} worker crashed: {}; deliveries come back{}",
        consumerId,
        Failure.withoutMessage(e),
        stuck ? "; nothing committed since its last crash, again in " + pause.next() : "");
    if (stuck) {
      pause.take();
    }
  }
}
