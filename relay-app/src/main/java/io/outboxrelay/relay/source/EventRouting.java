package io.outboxrelay.relay.source;

import io.outboxrelay.relay.publish.RecordSizeLimit;
import io.outboxrelay.relay.versions.VersionWatch;
import io.outboxrelay.router.EventRouter;
import io.outboxrelay.router.OutboxEvent;
import io.outboxrelay.router.RoutedRecord;
import org.apache.kafka.common.errors.RecordTooLargeException;

/**
 * The step both sources take for each event read: route it to its record, or say why it cannot be
 * published (poison: a row the relay could not read, one the router refuses, or, where a size limit
 * is given, a record Kafka would refuse as too large). A routed event is recorded with the version
 * check, once: a record sent again is not routed again. What becomes of poison (DEAD, a skip, a
 * stop) is each source's. Thread-safe when the router and the version check are (they are).
 */
public final class EventRouting {

  /** What became of one event. */
  public sealed interface Result permits Routed, Poison {}

  /**
   * The event's record, to send.
   *
   * @param record the record
   */
  public record Routed(RoutedRecord record) implements Result {}

  /**
   * Why the event cannot be published.
   *
   * @param cause the failure, for {@code ErrorClassifier.describe}
   */
  public record Poison(Throwable cause) implements Result {}

  private final EventRouter router;
  private final VersionWatch versions;
  private final RecordSizeLimit sizeLimit;

  /**
   * @param router the router
   * @param versions the version check routed events are recorded with
   * @param sizeLimit the record size Kafka takes, checked before sending; {@code null} to leave it
   *     to Kafka's answer
   */
  public EventRouting(EventRouter router, VersionWatch versions, RecordSizeLimit sizeLimit) {
    this.router = router;
    this.versions = versions;
    this.sizeLimit = sizeLimit;
  }

  /**
   * Routes one event.
   *
   * @param event the event read
   * @param malformed why the row could not be read in full, or {@code null}
   * @return its record, or why it is poison
   */
  public Result route(OutboxEvent event, RuntimeException malformed) {
    if (malformed != null) {
      return new Poison(malformed);
    }
    try {
      RoutedRecord routed = router.route(event);
      RecordTooLargeException tooLarge = sizeLimit == null ? null : sizeLimit.check(routed);
      if (tooLarge != null) {
        return new Poison(tooLarge);
      }
      versions.published(event);
      return new Routed(routed);
    } catch (RuntimeException e) {
      return new Poison(e);
    }
  }
}
