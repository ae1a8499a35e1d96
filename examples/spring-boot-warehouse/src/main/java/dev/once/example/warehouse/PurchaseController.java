package dev.once.example.warehouse;

import dev.once.spring.Idempotent;
import java.util.concurrent.ThreadLocalRandom;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code POST /purchases {"amountCents": 1999}} with an Idempotency-Key: places a new order (the
 * server picks its id) and pays it. The client's retry with the same key gets the first response
 * byte for byte — the same order id — and never places a second order: the key, the response, the
 * order and its {@code OrderPaid} event commit in one transaction (once.http.*, docs/HTTP.md).
 */
@RestController
public class PurchaseController {
  private final OrderService orders;

  public PurchaseController(OrderService orders) {
    this.orders = orders;
  }

  /** The request body. */
  public record Purchase(long amountCents) {}

  /** The answer: the new order. */
  public record Placed(long id, long amountCents) {}

  @Idempotent
  @PostMapping("/purchases")
  public ResponseEntity<Placed> purchase(@RequestBody Purchase request) {
    long id = ThreadLocalRandom.current().nextLong(1, Long.MAX_VALUE); // a new order each run
    PurchaseOrder o = orders.pay(id, request.amountCents());
    return ResponseEntity.status(HttpStatus.CREATED)
        .header("Location", "/orders/" + o.getId())
        .body(new Placed(o.getId(), o.getAmountCents()));
  }
}
