package dev.once.example.warehouse;

import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

/** A paid order. */
@Entity
@Table(name = "orders")
public class PurchaseOrder {
  @Id private Long id;
  private long amountCents;
  private String status;

  protected PurchaseOrder() {}

  public PurchaseOrder(long id, long amountCents, String status) {
    this.id = id;
    this.amountCents = amountCents;
    this.status = status;
  }

  public Long getId() {
    return id;
  }

  public long getAmountCents() {
    return amountCents;
  }

  public String getStatus() {
    return status;
  }

  public void setStatus(String status) {
    this.status = status;
  }
}
