package dev.once.example.warehouse;

import dev.once.ReceivedEvent;
import dev.once.spring.OnceHandler;
import dev.once.spring.OncePublisher;
import org.springframework.stereotype.Component;

/**
 * Turns each paid order into one dispatch job. Runs in the consumer's Spring transaction, with the
 * inbox marker: the job (saved through Spring Data JPA), the {@link DispatchQueued} event and the
 * marker commit together, so a redelivered {@code OrderPaid} is a duplicate, never a second job.
 */
@Component
public class DispatchHandler {
  private final DispatchJobRepository jobs;
  private final OncePublisher publisher;

  public DispatchHandler(DispatchJobRepository jobs, OncePublisher publisher) {
    this.jobs = jobs;
    this.publisher = publisher;
  }

  @OnceHandler(consumer = "warehouse", destination = "orders")
  public void on(OrderPaid paid, ReceivedEvent event) {
    DispatchJob job = jobs.save(new DispatchJob(paid.orderId(), event.id().value()));
    publisher.publishFollowing(
        event, "dispatch-queued", "dispatch", new DispatchQueued(paid.orderId(), job.getId()));
  }
}
