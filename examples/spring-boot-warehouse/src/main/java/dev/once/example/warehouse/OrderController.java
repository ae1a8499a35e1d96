package dev.once.example.warehouse;

import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;

/** {@code POST /orders {"id": 42, "amountCents": 1999}} pays an order. */
@RestController
public class OrderController {
  private final OrderService orders;

  public OrderController(OrderService orders) {
    this.orders = orders;
  }

  /** The request body. */
  public record PayOrder(long id, long amountCents) {}

  @PostMapping("/orders")
  public ResponseEntity<PayOrder> pay(@RequestBody PayOrder request) {
    PurchaseOrder o = orders.pay(request.id(), request.amountCents());
    return ResponseEntity.status(HttpStatus.CREATED)
        .body(new PayOrder(o.getId(), o.getAmountCents()));
  }

  @ExceptionHandler(IllegalArgumentException.class)
  public ResponseEntity<String> badRequest(IllegalArgumentException e) {
    return ResponseEntity.badRequest().body(e.getMessage());
  }
}
