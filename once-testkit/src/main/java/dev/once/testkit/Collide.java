package dev.once.testkit;

import dev.once.OnceListener;
import dev.once.ReceivedEvent;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;

/**
 * A listener that holds every worker after it received its delivery until {@code parties} workers
 * have one: they then race on the marker at the same instant, so a concurrency test collides
 * instead of hoping to.
 */
public final class Collide implements OnceListener {
  private final CyclicBarrier barrier;

  public Collide(int parties) {
    this.barrier = new CyclicBarrier(parties);
  }

  @Override
  public void received(List<ReceivedEvent> batch) {
    try {
      barrier.await(20, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new IllegalStateException("workers did not meet", e);
    }
  }
}
