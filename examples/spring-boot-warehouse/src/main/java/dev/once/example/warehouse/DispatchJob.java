package dev.once.example.warehouse;

import jakarta.persistence.Entity;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.GenerationType;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

/** A job for the warehouse floor: pick and ship one order. The effect that must happen once. */
@Entity
@Table(name = "dispatch_jobs")
public class DispatchJob {
  @Id
  @GeneratedValue(strategy = GenerationType.IDENTITY)
  private Long id;

  private long orderId;
  private String eventId;

  protected DispatchJob() {}

  public DispatchJob(long orderId, String eventId) {
    this.orderId = orderId;
    this.eventId = eventId;
  }

  public Long getId() {
    return id;
  }

  public long getOrderId() {
    return orderId;
  }

  public String getEventId() {
    return eventId;
  }
}
