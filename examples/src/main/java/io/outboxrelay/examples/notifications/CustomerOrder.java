package io.outboxrelay.examples.notifications;

import java.time.Instant;

/**
 * One order as the notification service sees it: a row of its {@code customer_orders} read model
 * and how many notifications it sent for the order. Immutable.
 *
 * @param orderId the order
 * @param customerId its customer
 * @param status {@code CREATED} or {@code PAID}
 * @param paidAt when this service applied the order's {@code OrderPaid}, {@code null} if unpaid
 * @param notifications rows in {@code notifications} for the order
 */
public record CustomerOrder(
    String orderId, String customerId, String status, Instant paidAt, int notifications) {}
