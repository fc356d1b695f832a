package io.outboxrelay.examples.spring.notifications;

import org.springframework.data.jpa.repository.JpaRepository;

/** The customer orders, with Spring Data JPA. */
public interface CustomerOrders extends JpaRepository<CustomerOrder, String> {}
