package io.outboxrelay.examples.spring.notifications;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

/** The notification service's copy of an order. Not final, for JPA. */
@Entity
@Table(name = "customer_orders")
public class CustomerOrder {
  @Id
  @Column(name = "order_id")
  private String orderId;

  private String customer;

  @Column(name = "amount_cents")
  private long amountCents;

  private String status;

  /** For JPA. */
  protected CustomerOrder() {}

  CustomerOrder(String orderId, String customer, long amountCents) {
    this.orderId = orderId;
    this.customer = customer;
    this.amountCents = amountCents;
    this.status = "CREATED";
  }

  void paid() {
    status = "PAID";
  }

  /** The order id. */
  public String orderId() {
    return orderId;
  }

  /** CREATED or PAID. */
  public String status() {
    return status;
  }
}
