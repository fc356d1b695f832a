package io.outboxrelay.connect;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.outboxrelay.change.OutboxChangeFixtures;
import io.outboxrelay.router.EventRouter;
import io.outboxrelay.router.OutboxColumn;
import io.outboxrelay.router.OutboxEvent;
import io.outboxrelay.router.RoutedRecord;
import io.outboxrelay.router.TopicTemplate;
import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.errors.DataException;
import org.apache.kafka.connect.header.ConnectHeaders;
import org.apache.kafka.connect.header.Header;
import org.apache.kafka.connect.source.SourceRecord;
import org.apache.kafka.connect.transforms.Transformation;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class OutboxRouterTransformTest {

  private static final String PAYLOAD = "{\"b\": 1,  \"a\":\"caf\u00e9 \\u00e9\"}";
  private static final String EVENT_ID = "0b6f3d4e-8a59-4c43-9e0e-2f1f0c7a1d5e";
  private static final String TABLE = "srv.app.outbox_events";

  private final OutboxRouterTransform<SourceRecord> transform = new OutboxRouterTransform<>();

  @AfterEach
  void close() {
    transform.close();
  }

  @Test
  void publishesAnInsertAsTheRoutersRecordWithItsHeadersOnly() {
    transform.configure(Map.of("router.topic.template", "orders.${aggregate_type}.${event_type}"));
    SourceRecord change = change("c", textRow(7, EVENT_ID, PAYLOAD));
    change.headers().addString("__debezium.context.connectorName", "mariadb");

    SourceRecord out = transform.apply(change);

    RoutedRecord expected =
        EventRouter.withTopicTemplate(TopicTemplate.parse("orders.${aggregate_type}.${event_type}"))
            .route(
                new OutboxEvent(
                    7,
                    EVENT_ID,
                    "order",
                    "o-1",
                    "OrderCreated",
                    PAYLOAD.getBytes(StandardCharsets.UTF_8),
                    null));
    assertThat(out.topic()).isEqualTo(expected.topic()).isEqualTo("orders.order.OrderCreated");
    assertThat(out.kafkaPartition()).isNull();
    assertThat(out.keySchema()).isEqualTo(Schema.BYTES_SCHEMA);
    assertThat((byte[]) out.key()).isEqualTo(expected.key());
    assertThat(out.valueSchema()).isEqualTo(Schema.BYTES_SCHEMA);
    assertThat((byte[]) out.value()).isEqualTo(expected.value());
    assertThat(headers(out))
        .containsExactlyElementsOf(
            expected.headers().stream().map(h -> h.name() + "=" + h.valueAsString()).toList());
    assertThat(headers(out))
        .containsExactly(
            "id=" + EVENT_ID,
            "event_type=OrderCreated",
            "aggregate_type=order",
            "aggregate_id=o-1");
    assertThat(out.sourceOffset()).isEqualTo(change.sourceOffset());
  }

  @Test
  void publishesTheAggregateVersionColumnAsTheRouterDoes() {
    transform.configure(Map.of());
    Schema versionedRow =
        OutboxChangeFixtures.rowSchema(TABLE, Schema.STRING_SCHEMA, Schema.OPTIONAL_STRING_SCHEMA)
            .field("aggregate_version", Schema.OPTIONAL_INT64_SCHEMA)
            .build();
    Struct row =
        OutboxChangeFixtures.row(versionedRow, 7L, EVENT_ID, "order", "o-1", "OrderPaid", PAYLOAD)
            .put("aggregate_version", 12L);

    SourceRecord versioned = transform.apply(change("c", row));
    SourceRecord unversioned = transform.apply(change("c", row.put("aggregate_version", null)));

    assertThat(headers(versioned))
        .containsExactly(
            "id=" + EVENT_ID,
            "event_type=OrderPaid",
            "aggregate_type=order",
            "aggregate_id=o-1",
            "aggregate_version=12");
    assertThat(headers(unversioned)).noneMatch(h -> h.startsWith("aggregate_version="));
  }

  @Test
  void publishesTheHeadersColumnAfterTheRelaysOwnHeadersInMemberOrder() {
    transform.configure(Map.of());
    Struct row =
        OutboxChangeFixtures.row(withHeaders(), 7L, EVENT_ID, "order", "o-1", "OrderPaid", PAYLOAD)
            .put("headers", "{\"tenant\":\"acme\",\"channel\":\"caf\\u00e9\"}");

    assertThat(headers(transform.apply(change("c", row))))
        .containsExactly(
            "id=" + EVENT_ID,
            "event_type=OrderPaid",
            "aggregate_type=order",
            "aggregate_id=o-1",
            "tenant=acme",
            "channel=caf\u00e9");
    assertThat(headers(transform.apply(change("c", row.put("headers", "{}"))))).hasSize(4);
    assertThat(headers(transform.apply(change("c", row.put("headers", null))))).hasSize(4);
  }

  @Test
  void stopsAtInvalidApplicationHeadersNamingTheHeaderButNotItsValue() {
    transform.configure(Map.of());
    Struct row =
        OutboxChangeFixtures.row(withHeaders(), 7L, EVENT_ID, "order", "o-1", "OrderPaid", PAYLOAD)
            .put("headers", "{\"email\":\"alice@example.com\",\"aggregate_id\":\"x\"}");

    assertThatThrownBy(() -> transform.apply(change("c", row)))
        .isInstanceOf(DataException.class)
        .hasMessageStartingWith("cannot publish event_id=" + EVENT_ID)
        .hasMessageContaining("header name 'aggregate_id' is reserved")
        .hasMessageContaining("poison.action=skip")
        .hasMessageNotContaining("alice");
    transform.configure(Map.of("poison.action", "skip"));
    assertThat(transform.apply(change("c", row))).isNull();
  }

  @Test
  void readsDebeziumsOutboxTableWithTheColumnSettings() {
    transform.configure(DEBEZIUM_LAYOUT);
    Struct row =
        new Struct(DEBEZIUM_ROW)
            .put("id", EVENT_ID)
            .put("aggregatetype", "order")
            .put("aggregateid", "o-1")
            .put("type", "OrderPaid")
            .put("timestamp", "2026-03-11T10:00:00.123456Z")
            .put("payload", PAYLOAD)
            .put(
                "tracingspancontext",
                "#Wed Mar 11 10:00:00 UTC 2026\ntraceparent="
                    + "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01\n");

    SourceRecord out = transform.apply(debeziumChange(row));

    assertThat(out.topic()).isEqualTo("outbox.event.order");
    assertThat(new String((byte[]) out.key(), StandardCharsets.UTF_8)).isEqualTo("o-1");
    assertThat(new String((byte[]) out.value(), StandardCharsets.UTF_8)).isEqualTo(PAYLOAD);
    assertThat(headers(out))
        .containsExactly(
            "traceparent=00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
            "id=" + EVENT_ID,
            "eventTimestamp=2026-03-11T10:00:00.123456Z",
            "eventType=OrderPaid");
  }

  @Test
  void publishesAPlacedNumberAsItsDecimalTextAndANullAsNoHeader() {
    Map<String, String> settings = new HashMap<>(DEBEZIUM_LAYOUT);
    settings.put("source.column.additional.placement", "timestamp:header,seq:header:sequence");
    transform.configure(settings);
    Schema schema =
        SchemaBuilder.struct()
            .name(TABLE + ".Value")
            .field("id", Schema.STRING_SCHEMA)
            .field("aggregatetype", Schema.STRING_SCHEMA)
            .field("aggregateid", Schema.STRING_SCHEMA)
            .field("type", Schema.STRING_SCHEMA)
            .field("payload", Schema.STRING_SCHEMA)
            .field("TimeStamp", Schema.OPTIONAL_INT64_SCHEMA) // names compared without case
            .field("seq", Schema.OPTIONAL_INT32_SCHEMA)
            .optional()
            .build();
    Struct row =
        new Struct(schema)
            .put("id", EVENT_ID)
            .put("aggregatetype", "order")
            .put("aggregateid", "o-1")
            .put("type", "OrderPaid")
            .put("payload", PAYLOAD)
            .put("TimeStamp", 1_773_223_200_123_456L)
            .put("seq", null);

    assertThat(headers(transform.apply(debeziumChange(row))))
        .containsExactly("id=" + EVENT_ID, "timestamp=1773223200123456");
  }

  @Test
  void stopsAtAPlacedColumnTheTableLacksOrWhoseValueCannotBeAHeader() {
    Map<String, String> settings = new HashMap<>(DEBEZIUM_LAYOUT);
    settings.put("source.column.additional.placement", "blob:header");
    transform.configure(settings);
    Schema schema =
        SchemaBuilder.struct()
            .name(TABLE + ".Value")
            .field("id", Schema.STRING_SCHEMA)
            .field("aggregatetype", Schema.STRING_SCHEMA)
            .field("aggregateid", Schema.STRING_SCHEMA)
            .field("type", Schema.STRING_SCHEMA)
            .field("payload", Schema.STRING_SCHEMA)
            .field("blob", Schema.OPTIONAL_BYTES_SCHEMA)
            .optional()
            .build();
    Struct row =
        new Struct(schema)
            .put("id", EVENT_ID)
            .put("aggregatetype", "order")
            .put("aggregateid", "o-1")
            .put("type", "OrderPaid")
            .put("payload", PAYLOAD)
            .put("blob", new byte[] {1, 2});
    assertThatThrownBy(() -> transform.apply(debeziumChange(row)))
        .isInstanceOf(DataException.class)
        .hasMessageContaining("column blob of event_id=" + EVENT_ID + " holds byte[] values")
        .hasMessageContaining("place a text, integer or timestamp column");

    assertThatThrownBy(
            () ->
                transform.apply(
                    debeziumChange(
                        new Struct(DEBEZIUM_ROW)
                            .put("id", EVENT_ID)
                            .put("aggregatetype", "order")
                            .put("aggregateid", "o-1")
                            .put("type", "T")
                            .put("payload", "{}"))))
        .isInstanceOf(DataException.class)
        .hasMessageContaining("no column blob (placed as header blob)");
  }

  @Test
  void publishesSnapshotReadsLikeInserts() {
    transform.configure(Map.of());
    SourceRecord out = transform.apply(change("r", textRow(1, EVENT_ID, PAYLOAD)));
    assertThat(out.topic()).isEqualTo("outbox.event.order");
  }

  @ParameterizedTest
  @ValueSource(strings = {"u", "d", "t", "m"})
  void publishesNothingForUpdatesDeletesAndOtherOperations(String op) {
    transform.configure(Map.of());
    Struct row = textRow(1, EVENT_ID, PAYLOAD);
    assertThat(transform.apply(change(op, row))).isNull();
  }

  @Test
  void publishesNothingForADeletesTombstone() {
    transform.configure(Map.of());
    SourceRecord tombstone = new SourceRecord(Map.of(), Map.of(), TABLE, null, null, null, null);
    assertThat(transform.apply(tombstone)).isNull();
  }

  @Test
  void publishesNothingForHeartbeatsAndSchemaChanges() {
    transform.configure(Map.of());
    SourceRecord beat = OutboxChangeFixtures.heartbeat(Map.of(), Map.of(), "srv");
    assertThat(transform.apply(beat)).isNull();
  }

  @Test
  void readsABinaryEventIdAsAUuidAndABinaryPayloadAsItsBytes() {
    transform.configure(Map.of());
    Schema rowSchema = rowSchema(Schema.BYTES_SCHEMA, Schema.OPTIONAL_BYTES_SCHEMA);
    byte[] uuid = new byte[16];
    ByteBuffer.wrap(uuid).putLong(0x0b6f3d4e8a594c43L).putLong(0x9e0e2f1f0c7a1d5eL);
    byte[] payload = {'{', '}', (byte) 0xc3, (byte) 0xa9};
    Struct row = row(rowSchema, 3, ByteBuffer.wrap(uuid), ByteBuffer.wrap(payload));

    SourceRecord out = transform.apply(change("c", row));

    assertThat(headers(out)).first().isEqualTo("id=" + EVENT_ID);
    assertThat((byte[]) out.value()).isEqualTo(payload);
  }

  @Test
  void stopsAtANullPayloadNamingTheEventButNotItsPayload() {
    transform.configure(Map.of());
    SourceRecord change = change("c", textRow(9, EVENT_ID, null));
    assertThatThrownBy(() -> transform.apply(change))
        .isInstanceOf(DataException.class)
        .hasMessageContaining("event_id=" + EVENT_ID)
        .hasMessageContaining("tombstone")
        .hasMessageContaining("poison.action=skip");
  }

  @Test
  void stopsAtAnEventWhoseTopicWouldBeIllegal() {
    transform.configure(Map.of("router.topic.template", "x.${event_type}"));
    Struct row = textRow(1, EVENT_ID, PAYLOAD).put("event_type", "Order Created!");
    assertThatThrownBy(() -> transform.apply(change("c", row)))
        .isInstanceOf(DataException.class)
        .hasMessageStartingWith(
            "cannot publish event_id=" + EVENT_ID + " (aggregate_type='order', aggregate_id='o-1')")
        .hasMessageContaining("not a legal Kafka topic name")
        .hasMessageNotContaining(PAYLOAD);
  }

  @Test
  void skipsPoisonWhenAskedAndGoesOn() {
    transform.configure(Map.of("poison.action", "SKIP"));
    assertThat(transform.apply(change("c", textRow(1, EVENT_ID, null)))).isNull();
    assertThat(transform.apply(change("c", textRow(2, EVENT_ID, PAYLOAD)))).isNotNull();
  }

  @Test
  void stopsAtAChangeEventWithoutAnOutboxColumn() {
    transform.configure(Map.of());
    Schema rowSchema =
        SchemaBuilder.struct()
            .name(TABLE + ".Value")
            .field("id", Schema.INT64_SCHEMA)
            .field("event_id", Schema.STRING_SCHEMA)
            .optional()
            .build();
    Struct row = new Struct(rowSchema).put("id", 1L).put("event_id", EVENT_ID);
    assertThatThrownBy(() -> transform.apply(change("c", row)))
        .isInstanceOf(DataException.class)
        .hasMessageContaining("no column aggregate_type")
        .hasMessageContaining("column.include.list");
  }

  @Test
  void refusesToApplyBeforeBeingConfigured() {
    assertThatThrownBy(() -> transform.apply(change("c", textRow(1, EVENT_ID, PAYLOAD))))
        .isInstanceOf(IllegalStateException.class);
  }

  @Test
  void isListedInTheServiceManifestThatConnectsServiceLoadDiscoveryReads() throws IOException {
    List<String> listed = new ArrayList<>();
    for (URL manifest :
        Collections.list(
            getClass()
                .getClassLoader()
                .getResources("META-INF/services/" + Transformation.class.getName()))) {
      try (InputStream in = manifest.openStream()) {
        new String(in.readAllBytes(), StandardCharsets.UTF_8)
            .lines()
            .map(String::strip)
            .forEach(listed::add);
      }
    }
    assertThat(listed).contains(OutboxRouterTransform.class.getName());
    assertThat(Transformation.class).isAssignableFrom(OutboxRouterTransform.class);
    assertThat(new OutboxRouterTransform<SourceRecord>().version()).isNotBlank();
  }

  @Test
  void declaresEverySettingWithADoc() {
    List<String> keys =
        new ArrayList<>(
            List.of(
                "router.topic.template",
                "router.headers",
                "poison.action",
                "source.column.sequence",
                "source.column.additional.placement"));
    // One setting per column of the contract, with the relay's name for it.
    for (OutboxColumn column : OutboxColumn.values()) {
      keys.add("source.column." + column.key());
    }
    assertThat(transform.config().configKeys()).containsOnlyKeys(keys);
    assertThat(keys).contains("source.column.event.id", "source.column.tracing.span.context");
    transform.config().configKeys().values().forEach(k -> assertThat(k.documentation).isNotBlank());
  }

  private static List<String> headers(SourceRecord record) {
    List<String> list = new ArrayList<>();
    for (Header h : record.headers()) {
      assertThat(h.schema()).isEqualTo(Schema.STRING_SCHEMA);
      list.add(h.key() + "=" + h.value());
    }
    return list;
  }

  /** The relay's column settings for Debezium's outbox table, as config/examples sets them. */
  private static final Map<String, String> DEBEZIUM_LAYOUT =
      Map.of(
          "router.headers", "id",
          "source.column.event.id", "id",
          "source.column.aggregate.type", "aggregatetype",
          "source.column.aggregate.id", "aggregateid",
          "source.column.event.type", "type",
          "source.column.additional.placement",
              "timestamp:header:eventTimestamp,type:header:eventType");

  /** Debezium's documented outbox table, as the MariaDB connector emits its rows. */
  private static final Schema DEBEZIUM_ROW =
      SchemaBuilder.struct()
          .name(TABLE + ".Value")
          .field("id", Schema.STRING_SCHEMA)
          .field("aggregatetype", Schema.STRING_SCHEMA)
          .field("aggregateid", Schema.STRING_SCHEMA)
          .field("type", Schema.STRING_SCHEMA)
          .field("timestamp", Schema.OPTIONAL_STRING_SCHEMA)
          .field("payload", Schema.OPTIONAL_STRING_SCHEMA)
          .field("tracingspancontext", Schema.OPTIONAL_STRING_SCHEMA)
          .optional()
          .build();

  private static Schema withHeaders() {
    return OutboxChangeFixtures.rowSchema(
            TABLE, Schema.STRING_SCHEMA, Schema.OPTIONAL_STRING_SCHEMA)
        .field("headers", Schema.OPTIONAL_STRING_SCHEMA)
        .optional()
        .build();
  }

  /** An insert into Debezium's table: keyed by its text id. */
  private static SourceRecord debeziumChange(Struct row) {
    SourceRecord change = change("c", textRow(1, EVENT_ID, PAYLOAD));
    Struct envelope = (Struct) change.value();
    Schema envelopeSchema =
        SchemaBuilder.struct()
            .name(TABLE + ".Envelope")
            .field("before", row.schema())
            .field("after", row.schema())
            .field("source", envelope.schema().field("source").schema())
            .field("op", Schema.STRING_SCHEMA)
            .build();
    Struct value =
        new Struct(envelopeSchema)
            .put("after", row)
            .put("source", envelope.getStruct("source"))
            .put("op", "c");
    return new SourceRecord(
        change.sourcePartition(),
        change.sourceOffset(),
        TABLE,
        null,
        Schema.STRING_SCHEMA,
        row.get("id"),
        envelopeSchema,
        value,
        null,
        new ConnectHeaders());
  }

  private static Schema rowSchema(Schema eventIdSchema, Schema payloadSchema) {
    return OutboxChangeFixtures.rowSchema(TABLE, eventIdSchema, payloadSchema).optional().build();
  }

  private static final Schema TEXT_ROW =
      rowSchema(Schema.STRING_SCHEMA, Schema.OPTIONAL_STRING_SCHEMA);

  private static Struct textRow(long id, String eventId, String payload) {
    return row(TEXT_ROW, id, eventId, payload);
  }

  private static Struct row(Schema schema, long id, Object eventId, Object payload) {
    return OutboxChangeFixtures.row(schema, id, eventId, "order", "o-1", "OrderCreated", payload);
  }

  /** A change event shaped as Debezium's MariaDB and MySQL connectors emit it. */
  private static SourceRecord change(String op, Struct row) {
    Schema source =
        SchemaBuilder.struct()
            .name("io.debezium.connector.mariadb.Source")
            .field("ts_ms", Schema.INT64_SCHEMA)
            .build();
    Schema envelope =
        SchemaBuilder.struct()
            .name(TABLE + ".Envelope")
            .field("before", row.schema())
            .field("after", row.schema())
            .field("source", source)
            .field("op", Schema.STRING_SCHEMA)
            .field("ts_ms", Schema.OPTIONAL_INT64_SCHEMA)
            .build();
    Struct value =
        new Struct(envelope)
            .put("source", new Struct(source).put("ts_ms", Instant.EPOCH.toEpochMilli()))
            .put("op", op);
    if ("d".equals(op)) {
      value.put("before", row);
    } else {
      value.put("after", row);
    }
    Map<String, Object> offset = new HashMap<>();
    offset.put("pos", 4L);
    Schema keySchema =
        SchemaBuilder.struct().name(TABLE + ".Key").field("id", Schema.INT64_SCHEMA).build();
    return new SourceRecord(
        Map.of("server", "srv"),
        offset,
        TABLE,
        null,
        keySchema,
        new Struct(keySchema).put("id", row.get("id")),
        envelope,
        value,
        null,
        new ConnectHeaders());
  }
}
