package io.outboxrelay.examples.spring.notifications;

import java.util.List;
import org.springframework.data.jpa.repository.JpaRepository;

/** The notifications, with Spring Data JPA. */
public interface Notifications extends JpaRepository<Notification, Long> {

  /**
   * The notifications of an order.
   *
   * @param orderId the order
   * @return its notifications
   */
  List<Notification> findByOrderId(String orderId);
}
