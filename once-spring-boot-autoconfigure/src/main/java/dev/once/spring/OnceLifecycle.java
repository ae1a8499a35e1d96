package dev.once.spring;

import dev.once.Consumer;
import dev.once.Once;
import dev.once.Operations;
import dev.once.spring.OnceHandlers.Subscription;
import dev.once.spring.autoconfigure.OnceProperties;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;

/**
 * Starts Once's engines when the application context is ready and stops them first on shutdown: one
 * consumer per {@code @OnceHandler} subscription (unless {@code once.consumers.<id>.enabled} is
 * false), the relay, the retention janitor and a reconciler per {@link Operations} bean. A stopping
 * consumer lets its in-flight batch commit or roll back; nothing is acknowledged before its commit.
 */
public class OnceLifecycle implements SmartLifecycle {
  private static final Logger log = LoggerFactory.getLogger(OnceLifecycle.class);

  private final Once once;
  private final OnceHandlers handlers;
  private final OnceProperties properties;
  private final List<Operations> operations;
  private final List<AutoCloseable> running = new ArrayList<>();
  private final List<Consumer> consumers = new ArrayList<>();
  private boolean started;

  public OnceLifecycle(
      Once once, OnceHandlers handlers, OnceProperties properties, List<Operations> operations) {
    this.once = once;
    this.handlers = handlers;
    this.properties = properties;
    this.operations = operations;
  }

  @Override
  public synchronized void start() {
    if (started) {
      return;
    }
    started = true;
    for (Subscription s : handlers.subscriptions()) {
      OnceProperties.Consumer c = properties.consumer(s.consumer());
      if (!c.isEnabled()) {
        log.info(
            "once: consumer {} is disabled by once.consumers.{}.enabled",
            s.consumer(),
            s.consumer());
        continue;
      }
      Consumer consumer = consumer(s, c).start();
      consumers.add(consumer);
      running.add(consumer);
    }
    if (properties.getRelay().isEnabled()) {
      running.add(once.newRelay().start());
    }
    if (properties.getRetention().isEnabled()) {
      running.add(once.newRetention().start());
    }
    for (Operations ops : operations) {
      running.add(ops.newReconciler().start());
    }
    log.info(
        "once: started {} consumers{}{} and {} reconcilers",
        consumers.size(),
        properties.getRelay().isEnabled() ? ", the relay" : "",
        properties.getRetention().isEnabled() ? ", retention" : "",
        operations.size());
  }

  private Consumer consumer(Subscription s, OnceProperties.Consumer c) {
    return c.applyTo(
            once.consumer(s.consumer())
                .subscribe(s.destination(), handlers.handler(s.consumer(), s.destination())))
        .build();
  }

  /** The consumers this lifecycle started, for tests and admin code. */
  public synchronized List<Consumer> consumers() {
    return List.copyOf(consumers);
  }

  /**
   * Stops every engine at the same time (each consumer lets its in-flight batch end) and waits for
   * all of them, so that shutdown takes as long as the slowest, not the sum.
   */
  @Override
  public synchronized void stop() {
    List<Thread> closing = new ArrayList<>();
    for (AutoCloseable engine : running) {
      Thread t = new Thread(() -> close(engine), "once-stop");
      t.start();
      closing.add(t);
    }
    for (Thread t : closing) {
      try {
        t.join();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
    }
    running.clear();
    consumers.clear();
    started = false;
  }

  private static void close(AutoCloseable engine) {
    try {
      engine.close();
    } catch (Exception e) {
      log.warn("once: an engine did not stop cleanly: {}", e.toString());
    }
  }

  @Override
  public synchronized boolean isRunning() {
    return started;
  }
}
