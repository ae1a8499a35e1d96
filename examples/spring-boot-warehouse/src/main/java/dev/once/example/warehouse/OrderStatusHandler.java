package dev.once.example.warehouse;

import dev.once.spring.OnceHandler;
import org.springframework.stereotype.Component;

/**
 * A second consumer, of {@code dispatch}: marks the order as queued for dispatch. The change is
 * made to a managed JPA entity and flushed with the consumer's transaction, marker included.
 */
@Component
public class OrderStatusHandler {
  private final OrderRepository orders;

  public OrderStatusHandler(OrderRepository orders) {
    this.orders = orders;
  }

  @OnceHandler(consumer = "order-status", destination = "dispatch")
  public void on(DispatchQueued queued) {
    orders.findById(queued.orderId()).ifPresent(o -> o.setStatus("DISPATCH_QUEUED"));
  }
}
