package io.outboxrelay.examples;

import static io.outboxrelay.examples.Report.check;

import io.outboxrelay.examples.Deliveries.Delivery;
import io.outboxrelay.examples.notifications.CustomerOrder;
import io.outboxrelay.examples.notifications.NotificationService;
import io.outboxrelay.idempotency.Outcome;
import io.outboxrelay.testsupport.stack.ConsumedRecord;
import java.sql.SQLException;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * Steps 7 to 9 of the demo, on the consumer's side: the notification service applies the events
 * that reached Kafka to its own database, then a copy of one {@code OrderPaid} arrives (as after a
 * relay crash) and changes nothing, rejected by its event id; then an old {@code OrderCreated}
 * arrives under a new event id and changes nothing, rejected by its aggregate version. Not
 * thread-safe.
 */
final class NotificationSteps {

  private static final Duration WAIT = Duration.ofSeconds(30);

  private final NotificationService service;
  private final Deliveries deliveries;
  private final String bootstrapServers;
  private final Report report;

  NotificationSteps(
      NotificationService service, Deliveries deliveries, String bootstrapServers, Report report) {
    this.service = service;
    this.deliveries = deliveries;
    this.bootstrapServers = bootstrapServers;
    this.report = report;
  }

  /** Step 7: waits until every record was applied and shows the service's tables. */
  List<CustomerOrder> awaitApplied(List<ConsumedRecord> records, Demo.Written written)
      throws InterruptedException, SQLException {
    Set<String> ids = records.stream().map(r -> r.header("id")).collect(Collectors.toSet());
    List<Delivery> seen =
        deliveries
            .awaitUntil(d -> d.stream().map(Delivery::eventId).toList().containsAll(ids), WAIT)
            .orElseThrow(this::notReported);
    Map<Outcome, Long> outcomes =
        seen.stream().collect(Collectors.groupingBy(Delivery::outcome, Collectors.counting()));
    report.line(
        "%d events applied, each in one transaction with its event id: %s", seen.size(), outcomes);
    List<CustomerOrder> orders = service.customerOrders();
    print(orders, written.created());
    check(
        seen.size() == ids.size()
            && outcomes.getOrDefault(Outcome.PROCESSED, 0L) == ids.size()
            && orders.size() == written.created().size()
            && orders.stream().allMatch(o -> appliedAsWritten(o, written)),
        "the notification service's tables are not as expected: " + orders);
    return orders;
  }

  /** Step 8: publishes the order's OrderPaid again and shows that nothing changed. */
  void redeliverPaid(List<ConsumedRecord> records, String orderId, List<CustomerOrder> before)
      throws Exception {
    ConsumedRecord original = find(records, orderId, "OrderPaid");
    report.step(
        8,
        "redelivering OrderPaid of "
            + orderId
            + " (event id "
            + original.header("id")
            + ") as the relay would after a crash");
    Redelivery.Sent sent = Redelivery.publishAgain(bootstrapServers, original);
    report.line(
        "published again with the same key, value and headers: partition %d offset %d (first at"
            + " offset %d)",
        sent.partition(), sent.offset(), original.offset());
    Outcome outcome = awaitOutcome(sent);
    List<CustomerOrder> after = service.customerOrders();
    int notifications =
        after.stream()
            .filter(o -> o.orderId().equals(orderId))
            .mapToInt(CustomerOrder::notifications)
            .sum();
    boolean unchanged = after.equals(before);
    report.line(
        "consumer: %s, %s; notifications for %s: %s; customer_orders %s",
        outcome,
        outcome == Outcome.DUPLICATE ? "ignored" : "APPLIED AGAIN (unexpected)",
        orderId,
        (unchanged ? "still " : "now ") + notifications,
        unchanged ? "unchanged" : "CHANGED (unexpected)");
    check(outcome == Outcome.DUPLICATE && unchanged, "the redelivered event was not ignored");
  }

  /**
   * Step 9: publishes the order's OrderCreated again under a new event id, as a replay or a stale
   * copy would arrive: the event id is new, so only its version (1, below the order's 2) shows it
   * is old. The consumer skips it as STALE and nothing changes.
   */
  void redeliverStaleCreated(
      List<ConsumedRecord> records, String orderId, List<CustomerOrder> before) throws Exception {
    ConsumedRecord original = find(records, orderId, "OrderCreated");
    String newId = java.util.UUID.randomUUID().toString();
    report.step(
        9,
        "publishing OrderCreated of "
            + orderId
            + " (aggregate_version "
            + original.header("aggregate_version")
            + ") again under a NEW event id "
            + newId
            + ", as a replay would: only its version shows it is old");
    Redelivery.Sent sent = Redelivery.publishAgain(bootstrapServers, original, Map.of("id", newId));
    report.line(
        "published at partition %d offset %d; the order's last applied version is 2 (OrderPaid)",
        sent.partition(), sent.offset());
    Outcome outcome = awaitOutcome(sent);
    List<CustomerOrder> after = service.customerOrders();
    boolean unchanged = after.equals(before);
    report.line(
        "consumer: %s, %s; customer_orders %s",
        outcome,
        outcome == Outcome.STALE
            ? "rejected by version (1 is not above 2), not by event id"
            : "NOT REJECTED BY VERSION (unexpected)",
        unchanged ? "unchanged (still PAID)" : "CHANGED (unexpected)");
    check(outcome == Outcome.STALE && unchanged, "the stale event was not skipped by version");
  }

  private static boolean appliedAsWritten(CustomerOrder order, Demo.Written written) {
    boolean paid = written.paid().contains(order.orderId());
    return written.created().contains(order.orderId())
        && order.status().equals(paid ? "PAID" : "CREATED")
        && (order.paidAt() != null) == paid
        && order.notifications() == (paid ? 1 : 0);
  }

  private void print(List<CustomerOrder> orders, List<String> inCreationOrder) {
    report.line("its customer_orders, with the notifications sent per order:");
    Map<String, CustomerOrder> byId =
        orders.stream().collect(Collectors.toMap(CustomerOrder::orderId, Function.identity()));
    for (String id : inCreationOrder) {
      CustomerOrder o = byId.get(id);
      if (o == null) {
        report.line("  %-16s (missing)", id);
        continue;
      }
      report.line(
          "  %-16s %-8s %-8s paid_at %-24s  notifications %d",
          o.orderId(),
          o.customerId(),
          o.status(),
          o.paidAt() == null ? "-" : o.paidAt().truncatedTo(ChronoUnit.MILLIS),
          o.notifications());
    }
  }

  /** The record of event type {@code eventType} of the order, among those consumed. */
  private static ConsumedRecord find(
      List<ConsumedRecord> records, String orderId, String eventType) {
    return records.stream()
        .filter(r -> orderId.equals(r.keyAsString()))
        .filter(r -> eventType.equals(r.header("event_type")))
        .findFirst()
        .orElseThrow();
  }

  /** Waits until the service reports the record it was sent again and returns its outcome. */
  private Outcome awaitOutcome(Redelivery.Sent sent) throws InterruptedException {
    return deliveries
        .awaitUntil(d -> d.stream().anyMatch(sent::is), WAIT)
        .orElseThrow(this::notReported)
        .stream()
        .filter(sent::is)
        .findFirst()
        .orElseThrow()
        .outcome();
  }

  private IllegalStateException notReported() {
    IllegalStateException e =
        new IllegalStateException(
            "the notification service did not report the events within "
                + WAIT.toSeconds()
                + " s; it reported "
                + deliveries.all());
    service.failure().ifPresent(e::initCause);
    return e;
  }
}
