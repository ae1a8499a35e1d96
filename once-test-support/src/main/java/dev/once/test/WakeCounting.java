package dev.once.test;

import static org.assertj.core.api.Assertions.assertThat;

import dev.once.jdbc.Dialect;
import dev.once.jdbc.QueueDialect;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;

/**
 * For tests that count how many idle receivers a wake-up gets going: a dialect whose queue counts
 * the calls of one of its methods (the claims), and a wait until given threads all wait for a
 * wake-up (in {@code Object.wait} under the engine's {@code Wakeup.await}). With the receivers'
 * idle wait long (a minute), every claim counted before it ran out was woken.
 */
public final class WakeCounting {
  private WakeCounting() {}

  /** {@code real}, with every call of its queue's {@code method} counted in {@code calls}. */
  public static Dialect countingQueueCalls(Dialect real, String method, AtomicInteger calls) {
    QueueDialect queue = real.queue();
    QueueDialect counting =
        proxy(
            QueueDialect.class,
            (p, m, args) -> {
              if (m.getName().equals(method)) {
                calls.incrementAndGet();
              }
              return m.invoke(queue, args);
            });
    return proxy(
        Dialect.class,
        (p, m, args) -> m.getName().equals("queue") ? counting : m.invoke(real, args));
  }

  /** Waits (at most {@code bound}) until every one of {@code threads} waits for a wake-up. */
  public static void awaitWaiting(List<Thread> threads, Duration bound)
      throws InterruptedException {
    awaitTrue(
        () ->
            threads.stream()
                .map(Thread::getStackTrace)
                .allMatch(
                    trace ->
                        trace.length > 0
                            && trace[0].getClassName().equals("java.lang.Object")
                            && trace[0].getMethodName().startsWith("wait")
                            && Arrays.stream(trace)
                                .anyMatch(f -> f.getClassName().endsWith("Wakeup"))),
        bound);
  }

  /** Waits (at most {@code bound}) until {@code condition} holds; fails the test after that. */
  public static void awaitTrue(BooleanSupplier condition, Duration bound)
      throws InterruptedException {
    long deadline = System.nanoTime() + bound.toNanos();
    while (!condition.getAsBoolean()) {
      assertThat(System.nanoTime()).as("waited %s", bound).isLessThan(deadline);
      Thread.sleep(5);
    }
  }

  private static <T> T proxy(Class<T> type, InvocationHandler handler) {
    InvocationHandler unwrapping =
        (p, m, args) -> {
          try {
            return handler.invoke(p, m, args);
          } catch (InvocationTargetException e) {
            throw e.getCause();
          }
        };
    return type.cast(
        Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type}, unwrapping));
  }
}
