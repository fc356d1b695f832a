package io.outboxrelay.examples.spring.orders;

import org.springframework.data.jpa.repository.JpaRepository;

/** The orders, with Spring Data JPA. */
public interface Orders extends JpaRepository<PurchaseOrder, String> {}
