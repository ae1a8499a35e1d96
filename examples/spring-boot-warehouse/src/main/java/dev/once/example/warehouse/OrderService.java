package dev.once.example.warehouse;

import dev.once.EventId;
import dev.once.spring.OncePublisher;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/** Pays an order: the order row and the {@link OrderPaid} event commit together, or neither. */
@Service
public class OrderService {
  private final OrderRepository orders;
  private final OncePublisher publisher;

  public OrderService(OrderRepository orders, OncePublisher publisher) {
    this.orders = orders;
    this.publisher = publisher;
  }

  @Transactional
  public PurchaseOrder pay(long orderId, long amountCents) {
    PurchaseOrder order = orders.save(new PurchaseOrder(orderId, amountCents, "PAID"));
    publisher.publish(
        EventId.of("order-paid", orderId),
        "orders",
        Long.toString(orderId),
        new OrderPaid(orderId, amountCents));
    if (amountCents <= 0) { // after the publish on purpose: the rollback must take the event too
      throw new IllegalArgumentException("amountCents must be > 0, was " + amountCents);
    }
    return order;
  }
}
