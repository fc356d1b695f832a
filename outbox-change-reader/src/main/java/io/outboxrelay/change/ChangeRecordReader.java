package io.outboxrelay.change;

import io.outboxrelay.router.OutboxEvent;
import io.outboxrelay.router.RoutingException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.UUID;
import org.apache.kafka.connect.connector.ConnectRecord;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.Struct;

/**
 * Reads the outbox row out of a Debezium change event: the one reader of both the relay's CDC mode
 * and the Kafka Connect transform, so that both publish the same records. Only inserts ({@code
 * op=c}) and snapshot reads ({@code op=r}) carry an event; updates, deletes, their tombstones,
 * heartbeats, schema changes and transaction markers carry none.
 *
 * <p>It knows Debezium's envelope by its shape (a struct whose schema is named {@code *.Envelope},
 * with {@code op}, {@code after} and {@code source}), so the plugin needs no Debezium classes; the
 * MariaDB and MySQL connectors emit the same envelope. Column values are converted as the relay
 * converts them: text columns as UTF-8, binary ones as their bytes, a {@code BINARY(16)} event id
 * as a UUID.
 *
 * <p>The optional {@code aggregate_version} column is looked up in each row image's schema, so a
 * column added while a reader streams is read from the first row written after it.
 *
 * <p>Column lookups are cached per row schema, which only changes with DDL. Not thread-safe: one
 * instance per thread (the relay's engine thread, a Connect task).
 */
public final class ChangeRecordReader {

  private static final String ENVELOPE_SUFFIX = ".Envelope";

  private Schema cachedSchema;
  private Field id;
  private Field eventId;
  private Field aggregateType;
  private Field aggregateId;
  private Field eventType;
  private Field payload;
  private Field aggregateVersion; // null: the table has no aggregate_version column

  /** Creates a reader; it learns the columns from the first row it reads. */
  public ChangeRecordReader() {}

  /**
   * Reads one record.
   *
   * @param record a record from a Debezium connector
   * @return the event, or {@code null} when the record publishes nothing
   * @throws RoutingException when the row lacks a required column or value
   * @throws ClassCastException when a text column is not text (e.g. VARBINARY), which the relay
   *     also refuses
   */
  public OutboxEvent read(ConnectRecord<?> record) {
    if (!(record.value() instanceof Struct envelope) || !isEnvelope(record.valueSchema())) {
      return null; // a tombstone, heartbeat, schema change or transaction marker
    }
    Object op = envelope.get("op");
    if (!"c".equals(op) && !"r".equals(op)) {
      return null; // an update, delete, truncate or message: the relay publishes nothing for them
    }
    Struct after = envelope.getStruct("after");
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

  private static boolean isEnvelope(Schema schema) {
    return schema != null
        && schema.type() == Schema.Type.STRUCT
        && schema.name() != null
        && schema.name().endsWith(ENVELOPE_SUFFIX)
        && schema.field("op") != null
        && schema.field("after") != null;
  }

  /** The binlog event's timestamp ({@code source.ts_ms}), as the relay takes it. */
  private static Instant sourceTimestamp(Struct envelope) {
    if (envelope.schema().field("source") == null) {
      return null;
    }
    Struct source = envelope.getStruct("source");
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
    // Optional, as in the relay: a row with it publishes the header aggregate_version.
    aggregateVersion = schema.field("aggregate_version");
    cachedSchema = schema;
  }

  private static Field required(Schema schema, String column) {
    Field f = schema.field(column);
    if (f == null) {
      throw new RoutingException(
          "the outbox table has no column "
              + column
              + ": create it as in config/mysql/outbox-schema.sql (with Kafka Connect, also name"
              + " it in the connector's column.include.list)");
    }
    return f;
  }

  /** An integer column's value: Short, Integer or Long (BigDecimal if precise), as the relay. */
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
        "column aggregate_version holds "
            + v.getClass().getSimpleName()
            + " values: make it BIGINT NULL as in config/mysql/outbox-schema.sql");
  }

  private static String text(Object v) {
    if (v == null || v instanceof String) {
      return (String) v;
    }
    byte[] b = bytes(v);
    if (b.length == 16) { // BINARY(16) UUID
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
