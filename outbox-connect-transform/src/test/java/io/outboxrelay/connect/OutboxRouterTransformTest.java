package io.outboxrelay.connect;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.outboxrelay.change.OutboxChangeFixtures;
import io.outboxrelay.router.EventRouter;
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
    assertThat(transform.config().configKeys())
        .containsOnlyKeys("router.topic.template", "poison.action");
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
