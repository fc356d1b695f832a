package io.outboxrelay.examples.spring.orders;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

/** An order; its {@code version} is the aggregate version its events carry. Not final, for JPA. */
@Entity
@Table(name = "orders")
public class PurchaseOrder {
  @Id private String id;
  private String customer;

  @Column(name = "amount_cents")
  private long amountCents;

  private String status;
  private long version;

  /** For JPA. */
  protected PurchaseOrder() {}

  PurchaseOrder(String id, String customer, long amountCents) {
    this.id = id;
    this.customer = customer;
    this.amountCents = amountCents;
    this.status = "CREATED";
    this.version = 1;
  }

  /** Marks the order paid: the next version. */
  void pay() {
    status = "PAID";
    version++;
  }

  /** The order id. */
  public String id() {
    return id;
  }

  /** The customer. */
  public String customer() {
    return customer;
  }

  /** The amount in cents. */
  public long amountCents() {
    return amountCents;
  }

  /** CREATED or PAID. */
  public String status() {
    return status;
  }

  /** 1 when created, 2 once paid. */
  public long version() {
    return version;
  }
}
