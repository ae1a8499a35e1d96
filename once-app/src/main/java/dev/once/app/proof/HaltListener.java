package dev.once.app.proof;

import dev.once.Event;
import dev.once.OnceListener;
import dev.once.ReceivedEvent;
import dev.once.app.common.UserError;
import dev.once.testkit.CrashPoint;
import java.io.PrintStream;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Kills its own process at a crash window: {@code Runtime.halt(137)}, no shutdown hooks, no finally
 * blocks, no acknowledgement — the same death as SIGKILL, but at a chosen step. Once armed, it
 * halts on the {@code (after + 1)}-th pass through the window. Prints {@code halt <window>} first,
 * so whoever started the process knows where it died.
 */
final class HaltListener implements OnceListener {
  static final int EXIT_CODE = 137;
  static final String PREFIX = "halt ";

  private record Armed(CrashPoint point, int after, AtomicInteger passes) {}

  private final PrintStream out;
  private volatile Armed armed;

  HaltListener(PrintStream out) {
    this.out = out;
  }

  /** From now on, halt on the {@code (after + 1)}-th pass through {@code point}. */
  void arm(CrashPoint point, int after) {
    armed = new Armed(point, after, new AtomicInteger());
  }

  /** Stops halting. */
  void disarm() {
    armed = null;
  }

  /** The window named by its label, e.g. {@code consumer.after-commit-before-ack}. */
  static CrashPoint window(String label) {
    return Arrays.stream(CrashPoint.values())
        .filter(p -> p.label().equals(label))
        .findFirst()
        .orElseThrow(
            () ->
                new UserError(
                    "--halt-at must be one of "
                        + Arrays.stream(CrashPoint.values()).map(CrashPoint::label).toList()
                        + ", was '"
                        + label
                        + "'"));
  }

  private void pass(CrashPoint reached) {
    Armed a = armed;
    if (a == null || a.point() != reached) {
      return;
    }
    if (a.passes().getAndIncrement() == a.after()) {
      out.println(PREFIX + reached.label());
      out.flush();
      Runtime.getRuntime().halt(EXIT_CODE);
    }
  }

  @Override
  public void beforeProducerCommit(List<Event> events) {
    pass(CrashPoint.PRODUCER_BEFORE_COMMIT);
  }

  @Override
  public void received(List<ReceivedEvent> batch) {
    pass(CrashPoint.CONSUMER_BEFORE_TRANSACTION);
  }

  @Override
  public void markerInserted(ReceivedEvent event) {
    pass(CrashPoint.CONSUMER_AFTER_MARKER);
  }

  @Override
  public void handled(ReceivedEvent event) {
    pass(CrashPoint.CONSUMER_AFTER_EFFECT);
  }

  @Override
  public void committed(List<ReceivedEvent> events) {
    pass(CrashPoint.CONSUMER_AFTER_COMMIT);
  }

  @Override
  public void published(List<Event> events) {
    pass(CrashPoint.RELAY_AFTER_PUBLISH);
  }
}
