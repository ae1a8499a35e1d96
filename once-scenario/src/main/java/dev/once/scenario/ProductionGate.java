package dev.once.scenario;

/**
 * How far a producer may go: orders up to an id that someone else raises over time ({@code once
 * verify} raises it as its kills progress, so that there is work left for every crash window).
 */
public final class ProductionGate {
  private long allowedUpTo;

  private ProductionGate(long allowedUpTo) {
    this.allowedUpTo = allowedUpTo;
  }

  /** A gate that lets everything through. */
  public static ProductionGate open() {
    return new ProductionGate(Long.MAX_VALUE);
  }

  /** A gate that lets nothing through until {@link #allow} is called. */
  public static ProductionGate closed() {
    return new ProductionGate(0);
  }

  /** Lets orders with ids up to {@code orderId} through. Never lowers the limit. */
  public synchronized void allow(long orderId) {
    if (orderId > allowedUpTo) {
      allowedUpTo = orderId;
      notifyAll();
    }
  }

  /** Waits until {@code orderId} may be produced. */
  public synchronized void await(long orderId) throws InterruptedException {
    while (orderId > allowedUpTo) {
      wait();
    }
  }
}
