package io.outboxrelay.examples.spring.notifications;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.GenerationType;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

/** A notification sent to a customer. Not final, for JPA. */
@Entity
@Table(name = "notifications")
public class Notification {
  @Id
  @GeneratedValue(strategy = GenerationType.IDENTITY)
  private Long id;

  @Column(name = "order_id")
  private String orderId;

  private String kind;
  private String message;

  /** For JPA. */
  protected Notification() {}

  Notification(String orderId, String kind, String message) {
    this.orderId = orderId;
    this.kind = kind;
    this.message = message;
  }

  /** The order it is about. */
  public String orderId() {
    return orderId;
  }

  /** ORDER_CONFIRMED or PAYMENT_RECEIVED. */
  public String kind() {
    return kind;
  }
}
