package io.outboxrelay.router;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class EventRouterTest {

  private static OutboxEvent event(String aggregateType, String eventType, byte[] payload) {
    return new OutboxEvent(
        7L,
        "5f0c6b8e-6f7a-4a52-9d4e-0d1b8c7f1a01",
        aggregateType,
        "order-42",
        eventType,
        payload,
        Instant.parse("2026-11-29T10:00:00Z"));
  }

  @Test
  void routesWithDebeziumCompatibleDefaults() {
    byte[] payload = "{\"orderId\":42}".getBytes(StandardCharsets.UTF_8);

    RoutedRecord record = EventRouter.withDefaults().route(event("order", "OrderCreated", payload));

    assertThat(record.topic()).isEqualTo("outbox.event.order");
    assertThat(new String(record.key(), StandardCharsets.UTF_8)).isEqualTo("order-42");
    assertThat(record.header("id")).isEqualTo("5f0c6b8e-6f7a-4a52-9d4e-0d1b8c7f1a01");
    assertThat(record.header("event_type")).isEqualTo("OrderCreated");
    assertThat(record.header("aggregate_type")).isEqualTo("order");
    assertThat(record.header("aggregate_id")).isEqualTo("order-42");
    assertThat(record.headers())
        .extracting(RecordHeader::name)
        .containsExactly("id", "event_type", "aggregate_type", "aggregate_id");
  }

  @Test
  void publishesTheAggregateVersionAsADecimalHeaderAfterTheOthers() {
    OutboxEvent versioned =
        new OutboxEvent(
            7L,
            "5f0c6b8e-6f7a-4a52-9d4e-0d1b8c7f1a01",
            "order",
            "order-42",
            "OrderPaid",
            "{}".getBytes(StandardCharsets.UTF_8),
            null,
            9_007_199_254_740_993L);

    RoutedRecord record = EventRouter.withDefaults().route(versioned);

    // Decimal UTF-8 text, as consumer-idempotency's version check reads it; beyond 2^53 too.
    assertThat(record.header(OutboxHeaders.AGGREGATE_VERSION)).isEqualTo("9007199254740993");
    assertThat(record.headers())
        .extracting(RecordHeader::name)
        .containsExactly("id", "event_type", "aggregate_type", "aggregate_id", "aggregate_version");
  }

  @Test
  void publishesNoVersionHeaderForAnEventWithoutVersion() {
    RoutedRecord record =
        EventRouter.withDefaults()
            .route(event("order", "OrderPaid", "{}".getBytes(StandardCharsets.UTF_8)));

    assertThat(record.header(OutboxHeaders.AGGREGATE_VERSION)).isNull();
    assertThat(record.headers()).hasSize(4);
  }

  @Test
  void publishesThePayloadBytesUntouched() {
    // Whitespace, key order, escapes and non-ASCII text must survive byte for byte.
    byte[] payload =
        "{ \"b\" : 1,\n  \"a\":\"caf\u00e9 \\u00e9 \\\"q\\\"\" }".getBytes(StandardCharsets.UTF_8);

    RoutedRecord record = EventRouter.withDefaults().route(event("order", "OrderPaid", payload));

    assertThat(record.value()).isSameAs(payload);
  }

  @Test
  void refusesANullPayloadBecauseItsRecordWouldBeATombstone() {
    // A null value is a tombstone: on a compacted topic it deletes the aggregate's history.
    assertThatThrownBy(() -> EventRouter.withDefaults().route(event("order", "OrderDeleted", null)))
        .isInstanceOf(RoutingException.class)
        .hasMessageStartingWith("payload is NULL: event_id=5f0c6b8e-6f7a-4a52-9d4e-0d1b8c7f1a01")
        .hasMessageContaining("aggregate_id='order-42'")
        .hasMessageContaining("tombstone")
        .extracting(e -> ((RoutingException) e).reason())
        .isEqualTo(RoutingException.Reason.NULL_PAYLOAD);
  }

  @Test
  void publishesAnEmptyPayloadAsAnEmptyValueNotATombstone() {
    RoutedRecord record =
        EventRouter.withDefaults().route(event("order", "OrderDeleted", new byte[0]));

    assertThat(record.value()).isNotNull().isEmpty();
  }

  @Test
  void rendersTheEventTypeIntoTheTopicWhenTheTemplateAsksForIt() {
    EventRouter router =
        EventRouter.withTopicTemplate(
            TopicTemplate.parse("events.${aggregate_type}.${event_type}"));

    assertThat(router.route(event("order", "OrderCreated", new byte[0])).topic())
        .isEqualTo("events.order.OrderCreated");
    assertThat(router.route(event("order", "OrderPaid", new byte[0])).topic())
        .isEqualTo("events.order.OrderPaid");
    assertThat(router.route(event("invoice", "OrderPaid", new byte[0])).topic())
        .isEqualTo("events.invoice.OrderPaid");
  }

  @Test
  void rejectsAnEventWhoseAggregateTypeMakesAnIllegalTopic() {
    EventRouter router = EventRouter.withDefaults();

    assertThatThrownBy(() -> router.route(event("order created", "OrderCreated", new byte[0])))
        .isInstanceOf(RoutingException.class)
        .hasMessageContaining("outbox.event.order created")
        .hasMessageContaining("aggregate_type='order created'")
        .hasMessageContaining("not a legal Kafka topic name");
  }

  @Test
  void keepsRejectingAnIllegalValueAfterLegalOnesWereCached() {
    EventRouter router = EventRouter.withDefaults();
    router.route(event("order", "OrderCreated", new byte[0]));

    assertThatThrownBy(() -> router.route(event("order/x", "OrderCreated", new byte[0])))
        .isInstanceOf(RoutingException.class);
    assertThat(router.route(event("order", "OrderCreated", new byte[0])).topic())
        .isEqualTo("outbox.event.order");
  }

  @Test
  void neverPrintsThePayloadInToString() {
    byte[] payload = "{\"card\":\"4111-1111\"}".getBytes(StandardCharsets.UTF_8);
    OutboxEvent event = event("order", "OrderPaid", payload);
    RoutedRecord record = EventRouter.withDefaults().route(event);

    assertThat(event.toString()).doesNotContain("4111").contains("payloadBytes=" + payload.length);
    assertThat(record.toString()).doesNotContain("4111").contains("valueBytes=" + payload.length);
  }

  @Test
  void comparesEventsAndRecordsByContent() {
    byte[] a = "{}".getBytes(StandardCharsets.UTF_8);
    byte[] b = "{}".getBytes(StandardCharsets.UTF_8);

    assertThat(event("order", "X", a)).isEqualTo(event("order", "X", b));
    assertThat(event("order", "X", a)).hasSameHashCodeAs(event("order", "X", b));
    assertThat(EventRouter.withDefaults().route(event("order", "X", a)))
        .isEqualTo(EventRouter.withDefaults().route(event("order", "X", b)));
  }

  private static OutboxEvent full(String headers, String traceContext) {
    return new OutboxEvent(
        7L,
        "5f0c6b8e-6f7a-4a52-9d4e-0d1b8c7f1a01",
        "order",
        "order-42",
        "OrderPaid",
        "{}".getBytes(StandardCharsets.UTF_8),
        null,
        3L,
        headers,
        traceContext,
        List.of(RecordHeader.utf8("eventTimestamp", "2026-03-11T10:00:00.123456Z")));
  }

  private static final String PARENT = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";

  @Test
  void ordersTraceHeadersThenOwnThenPlacedThenApplicationHeaders() {
    RoutedRecord record =
        EventRouter.withDefaults()
            .route(
                full(
                    "{\"tenant\":\"acme\",\"channel\":\"web\"}",
                    "traceparent=" + PARENT + "\ntracestate=a\\=1"));

    assertThat(record.headers())
        .extracting(RecordHeader::name)
        .containsExactly(
            "traceparent",
            "tracestate",
            "id",
            "event_type",
            "aggregate_type",
            "aggregate_id",
            "aggregate_version",
            "eventTimestamp",
            "tenant",
            "channel");
    assertThat(record.header("tenant")).isEqualTo("acme");
    assertThat(record.header("traceparent")).isEqualTo(PARENT);
    assertThat(record.header("tracestate")).isEqualTo("a=1");
  }

  @Test
  void publishesOnlyTheOwnHeadersAskedForInTheirOrder() {
    EventRouter idOnly = EventRouter.builder().headers(List.of("id")).build();
    EventRouter reordered =
        EventRouter.builder().headers(List.of("aggregate_version", "id", "event_type")).build();

    assertThat(idOnly.route(full(null, null)).headers())
        .extracting(RecordHeader::name)
        .containsExactly("id", "eventTimestamp");
    assertThat(reordered.route(full("{}", "")).headers())
        .extracting(RecordHeader::name)
        .containsExactly("aggregate_version", "id", "event_type", "eventTimestamp");
    assertThat(idOnly.headers()).containsExactly("id");
  }

  @Test
  void refusesOwnHeaderListsWithoutIdOrWithUnknownOrRepeatedNames() {
    assertThatThrownBy(() -> EventRouter.builder().headers(List.of("event_type")))
        .hasMessageContaining("id is missing: consumers deduplicate on it");
    assertThatThrownBy(() -> EventRouter.builder().headers(List.of("id", "type")))
        .hasMessageContaining("'type' is not one of the relay's headers");
    assertThatThrownBy(() -> EventRouter.builder().headers(List.of("id", "id")))
        .hasMessageContaining("'id' is listed twice");
  }

  @Test
  void makesAnEventWithInvalidHeadersPoisonNamingTheEventAndTheHeaderNotItsValue() {
    assertThatThrownBy(
            () ->
                EventRouter.withDefaults()
                    .route(full("{\"email\":\"alice@example.com\",\"id\":\"x\"}", null)))
        .isInstanceOf(RoutingException.class)
        .hasMessageStartingWith("the headers of event_id=5f0c6b8e-6f7a-4a52-9d4e-0d1b8c7f1a01")
        .hasMessageContaining("header name 'id' is reserved")
        .hasMessageNotContaining("alice")
        .extracting(e -> ((RoutingException) e).reason())
        .isEqualTo(RoutingException.Reason.INVALID_HEADERS);
  }

  @Test
  void makesAnEventWithAMalformedTraceContextPoison() {
    assertThatThrownBy(
            () -> EventRouter.withDefaults().route(full(null, "traceparent=00-not-a-context")))
        .isInstanceOf(RoutingException.class)
        .hasMessageStartingWith("the trace context of event_id=5f0c6b8e")
        .hasMessageContaining("traceparent has 16 characters")
        .extracting(e -> ((RoutingException) e).reason())
        .isEqualTo(RoutingException.Reason.INVALID_TRACE_CONTEXT);
  }

  @Test
  void neverPrintsHeaderValuesInToString() {
    OutboxEvent event = full("{\"email\":\"alice@example.com\"}", "traceparent=" + PARENT);
    RoutedRecord record = EventRouter.withDefaults().route(event);

    assertThat(event.toString()).doesNotContain("alice").doesNotContain(PARENT);
    assertThat(record.toString())
        .doesNotContain("alice")
        .doesNotContain(PARENT)
        .doesNotContain("2026-03-11")
        .contains("email(17 bytes)");
  }
}
