package io.outboxrelay.relay.source.cdc;

import io.debezium.data.Envelope;
import io.outboxrelay.relay.source.OutboxColumns;
import io.outboxrelay.router.OutboxEvent;
import io.outboxrelay.router.RoutingException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.UUID;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.source.SourceRecord;

/**
 * Reads an {@link OutboxEvent} out of a Debezium change record. Records that are not inserts or
 * snapshot reads of the outbox table (heartbeats, updates, deletes) map to {@code null}: they carry
 * a position but nothing to publish.
 *
 * <p>Column lookups are cached per row schema, which only changes with DDL. Not thread-safe: one
 * instance per engine thread.
 */
final class ChangeEventMapper {

  /**
   * The outbox columns CDC mode captures; the others are excluded from change events. The last one
   * is optional: a row image without it (a table without the column) publishes no version.
   */
  static final java.util.List<String> CAPTURED_COLUMNS =
      java.util.List.of(
          "id",
          "event_id",
          "aggregate_type",
          "aggregate_id",
          "event_type",
          "payload",
          OutboxColumns.AGGREGATE_VERSION);

  private Schema cachedSchema;
  private Field id;
  private Field eventId;
  private Field aggregateType;
  private Field aggregateId;
  private Field eventType;
  private Field payload;
  private Field aggregateVersion; // null: the table has no such column

  /**
   * Maps one record.
   *
   * @param record the change record
   * @return the event, or {@code null} when the record publishes nothing
   * @throws RoutingException when the row lacks a required column or value
   */
  OutboxEvent map(SourceRecord record) {
    Object value = record.value();
    if (!(value instanceof Struct envelope) || !Envelope.isEnvelopeSchema(record.valueSchema())) {
      return null; // heartbeat or other control record
    }
    String op = envelope.getString(Envelope.FieldName.OPERATION);
    if (!"c".equals(op) && !"r".equals(op)) {
      return null;
    }
    Struct after = envelope.getStruct(Envelope.FieldName.AFTER);
    if (after == null) {
      return null;
    }
    if (after.schema() != cachedSchema) {
      resolve(after.schema());
    }
    Object rowId = after.get(id);
    String eventIdText = text(after.get(eventId));
    try {
      return new OutboxEvent(
          rowId instanceof Number n ? n.longValue() : -1L,
          eventIdText,
          (String) after.get(aggregateType),
          (String) after.get(aggregateId),
          (String) after.get(eventType),
          bytes(after.get(payload)),
          sourceTimestamp(envelope),
          aggregateVersion == null ? null : version(after.get(aggregateVersion)));
    } catch (NullPointerException e) {
      throw new RoutingException(
          "outbox row id="
              + rowId
              + " event_id="
              + eventIdText
              + " has a null "
              + e.getMessage()
              + ": make the column NOT NULL");
    }
  }

  /**
   * When the row was written, from the binlog event's timestamp (second precision on MariaDB); used
   * for the lag figure. Reading created_at instead would cost a date conversion per row.
   */
  private static Instant sourceTimestamp(Struct envelope) {
    Struct source = envelope.getStruct(Envelope.FieldName.SOURCE);
    if (source == null || source.schema().field("ts_ms") == null) {
      return null;
    }
    return source.get("ts_ms") instanceof Long ms ? Instant.ofEpochMilli(ms) : null;
  }

  private void resolve(Schema schema) {
    id = required(schema, "id");
    eventId = required(schema, "event_id");
    aggregateType = required(schema, "aggregate_type");
    aggregateId = required(schema, "aggregate_id");
    eventType = required(schema, "event_type");
    payload = required(schema, "payload");
    // Read from each row image's schema, so a column added while the relay streams (the ALTER
    // comes through the binlog) is published from the first row written after it.
    aggregateVersion = schema.field(OutboxColumns.AGGREGATE_VERSION);
    cachedSchema = schema;
  }

  private static Field required(Schema schema, String column) {
    Field f = schema.field(column);
    if (f == null) {
      throw new RoutingException(
          "the outbox table has no column "
              + column
              + ": create it as in"
              + " config/mysql/outbox-schema.sql");
    }
    return f;
  }

  /** An integer column's value: Debezium gives Short, Integer or Long (BigDecimal if precise). */
  private static Long version(Object v) {
    if (v == null) {
      return null;
    }
    if (v instanceof java.math.BigDecimal d) {
      return d.longValueExact();
    }
    if (v instanceof Number n) {
      return n.longValue();
    }
    throw new RoutingException(
        "column "
            + OutboxColumns.AGGREGATE_VERSION
            + " holds "
            + v.getClass().getSimpleName()
            + " values: make it BIGINT NULL as in config/mysql/outbox-schema.sql");
  }

  private static String text(Object v) {
    if (v == null || v instanceof String) {
      return (String) v;
    }
    byte[] b = bytes(v);
    if (b != null && b.length == 16) { // BINARY(16) UUID
      ByteBuffer bb = ByteBuffer.wrap(b);
      return new UUID(bb.getLong(), bb.getLong()).toString();
    }
    return new String(b, StandardCharsets.UTF_8);
  }

  private static byte[] bytes(Object v) {
    if (v == null) {
      return null;
    }
    if (v instanceof String s) {
      return s.getBytes(StandardCharsets.UTF_8);
    }
    if (v instanceof byte[] b) {
      return b;
    }
    if (v instanceof ByteBuffer bb) {
      byte[] b = new byte[bb.remaining()];
      bb.duplicate().get(b);
      return b;
    }
    return v.toString().getBytes(StandardCharsets.UTF_8);
  }
}
