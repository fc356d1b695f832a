package io.outboxrelay.change;

import io.outboxrelay.router.ColumnMapping;
import io.outboxrelay.router.HeaderPlacement;
import io.outboxrelay.router.OutboxColumn;
import io.outboxrelay.router.OutboxEvent;
import io.outboxrelay.router.RecordHeader;
import io.outboxrelay.router.RoutingException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
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
 * <p>The columns are those of a {@link ColumnMapping} (names compared without regard to case, as
 * the databases compare them). The optional ones (aggregate version, application headers, trace
 * context) and the row id are looked up in each row image's schema, so a column added while a
 * reader streams is read from the first row written after it. A placed column ({@link
 * HeaderPlacement}) is published as its value's text: Debezium's value for the column, a string or
 * a number ({@code String.valueOf}), which is what a worker's header converter writes for it; a
 * NULL publishes no header.
 *
 * <p>Column lookups are made once per row schema, which only changes with DDL. Not thread-safe: one
 * instance per thread (the relay's engine thread, a Connect task).
 */
public final class ChangeRecordReader {

  private static final String ENVELOPE_SUFFIX = ".Envelope";

  private final ColumnMapping columns;
  private final String rowIdColumn;

  private Schema cachedSchema;
  private Field id; // null: the table has no row id column

  /** The field of each column, by {@link OutboxColumn} ordinal; null: an optional one is absent. */
  private final Field[] fields = new Field[OutboxColumn.values().length];

  private Field[] placed; // one per placement

  /** Creates a reader of the relay's own table layout ({@link ColumnMapping#DEFAULT}). */
  public ChangeRecordReader() {
    this(ColumnMapping.DEFAULT, ColumnMapping.DEFAULT_SEQUENCE);
  }

  /**
   * Creates a reader of a table laid out as {@code columns} says; it learns where the columns are
   * from the first row it reads.
   *
   * @param columns which columns hold what
   * @param rowIdColumn the column whose integer value is the event's row id ({@link
   *     OutboxEvent#id()}, only for messages here); optional: -1 when the table has none or it is
   *     not an integer
   */
  public ChangeRecordReader(ColumnMapping columns, String rowIdColumn) {
    this.columns = Objects.requireNonNull(columns, "columns");
    this.rowIdColumn = Objects.requireNonNull(rowIdColumn, "rowIdColumn");
  }

  /**
   * Reads one record.
   *
   * @param record a record from a Debezium connector
   * @return the event, or {@code null} when the record publishes nothing
   * @throws RoutingException when the row lacks a required column or value (the message names the
   *     table's column), or a placed column holds a value that cannot be a header
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
    Object rowId = id == null ? null : after.get(id);
    Map<OutboxColumn, Object> values = new EnumMap<>(OutboxColumn.class);
    Field missing = null;
    for (OutboxColumn column : OutboxColumn.requiredColumns()) {
      Field field = fields[column.ordinal()];
      Object value = value(column, field, after.get(field));
      values.put(column, value);
      if (value == null && missing == null && column != OutboxColumn.PAYLOAD) {
        missing = field; // a NULL payload is the router's to refuse (a tombstone)
      }
    }
    String eventIdText = (String) values.get(OutboxColumn.EVENT_ID);
    if (missing != null) {
      // The table's own column, not the default name the event's field has.
      throw new RoutingException(
          "outbox row "
              + (rowId == null ? "" : "id=" + rowId + " ")
              + OutboxEvent.describe(
                  eventIdText,
                  (String) values.get(OutboxColumn.AGGREGATE_TYPE),
                  (String) values.get(OutboxColumn.AGGREGATE_ID))
              + " has a null "
              + missing.name()
              + ": make the column NOT NULL");
    }
    for (OutboxColumn column : OutboxColumn.optionalColumns()) {
      Field field = fields[column.ordinal()];
      values.put(column, field == null ? null : value(column, field, after.get(field)));
    }
    return OutboxEvent.of(
        rowId instanceof Number n ? n.longValue() : -1L,
        sourceTimestamp(envelope),
        values,
        placed.length == 0 ? List.of() : placedHeaders(after, eventIdText));
  }

  /**
   * A column's value as {@link OutboxEvent#of} takes it: text columns as their text (a text column
   * of another type is a {@code ClassCastException}, as in the relay), the event id and JSON also
   * from bytes, the payload as bytes, an integer as a {@code Long}.
   */
  private static Object value(OutboxColumn column, Field field, Object v) {
    return switch (column.kind()) {
      case TEXT -> (String) v;
      case PAYLOAD -> bytes(v);
      case INTEGER -> version(field, v);
      case EVENT_ID, JSON, PLAIN_TEXT -> text(v);
    };
  }

  private List<RecordHeader> placedHeaders(Struct after, String eventIdText) {
    List<RecordHeader> out = new ArrayList<>(placed.length);
    List<HeaderPlacement> placements = columns.placements();
    for (int i = 0; i < placed.length; i++) {
      Object value = after.get(placed[i]);
      if (value == null) {
        continue; // NULL: no header
      }
      if (!(value instanceof String) && !(value instanceof Number) && !(value instanceof Boolean)) {
        throw new RoutingException(
            "column "
                + placed[i].name()
                + " of event_id="
                + eventIdText
                + " holds "
                + value.getClass().getSimpleName()
                + " values, which cannot be published as the header "
                + placements.get(i).header()
                + ": place a text, integer or timestamp column");
      }
      out.add(RecordHeader.utf8(placements.get(i).header(), String.valueOf(value)));
    }
    return out;
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
    for (OutboxColumn column : OutboxColumn.values()) {
      String name = columns.column(column);
      // Optional ones as in the relay: a row with them publishes their headers.
      fields[column.ordinal()] =
          column.required()
              ? required(schema, name, column.what().replaceFirst("^the ", ""))
              : field(schema, name);
    }
    id = field(schema, rowIdColumn);
    List<HeaderPlacement> placements = columns.placements();
    placed = new Field[placements.size()];
    for (int i = 0; i < placed.length; i++) {
      placed[i] =
          required(
              schema, placements.get(i).column(), "placed as header " + placements.get(i).header());
    }
    cachedSchema = schema;
  }

  /** The field of a column, its name compared without regard to case; null when there is none. */
  private static Field field(Schema schema, String column) {
    Field exact = schema.field(column);
    if (exact != null) {
      return exact;
    }
    for (Field f : schema.fields()) {
      if (f.name().equalsIgnoreCase(column)) {
        return f;
      }
    }
    return null;
  }

  private static Field required(Schema schema, String column, String what) {
    Field f = field(schema, column);
    if (f == null) {
      throw new RoutingException(
          "the outbox table has no column "
              + column
              + " ("
              + what
              + "): create it as in config/mysql/outbox-schema.sql, or name the column that holds"
              + " it in the column settings (with Kafka Connect, also name it in the connector's"
              + " column.include.list)");
    }
    return f;
  }

  /** An integer column's value: Short, Integer or Long (BigDecimal if precise), as the relay. */
  private static Long version(Field column, Object v) {
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
            + column.name()
            + " holds "
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
