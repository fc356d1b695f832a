package io.outboxrelay.relay.source.cdc;

import static io.outboxrelay.change.OutboxChangeFixtures.rowSchema;

import io.debezium.data.Envelope;
import io.debezium.engine.RecordChangeEvent;
import io.outboxrelay.change.OutboxChangeFixtures;
import java.time.Instant;
import java.util.Map;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.source.SourceRecord;

/** Builds Debezium change records shaped like the MariaDB connector's, for unit tests. */
final class ChangeRecords {

  private static final String TABLE = "outbox-relay.app.outbox_events";

  static final Schema ROW =
      rowSchema(TABLE, Schema.STRING_SCHEMA, Schema.OPTIONAL_STRING_SCHEMA)
          .field("created_at", Schema.OPTIONAL_STRING_SCHEMA)
          .field("status", Schema.OPTIONAL_STRING_SCHEMA)
          .build();

  static final Schema SOURCE =
      SchemaBuilder.struct()
          .name("io.debezium.connector.mariadb.Source")
          .field("pos", Schema.INT64_SCHEMA)
          .field("ts_ms", Schema.INT64_SCHEMA)
          .build();

  static final Envelope ENVELOPE = envelope(ROW);

  private ChangeRecords() {}

  static Struct row(long id, String aggregateType, String aggregateId, String payload) {
    return row(ROW, id, aggregateType, aggregateId, payload)
        .put("created_at", "2026-11-29T10:00:00.123456Z")
        .put("status", "PENDING");
  }

  static RecordChangeEvent<SourceRecord> insert(long id, String aggregateType, String aggregateId) {
    return wrap(
        id,
        ENVELOPE.create(
            row(id, aggregateType, aggregateId, "{\"n\":" + id + "}"), source(id), Instant.now()));
  }

  /** An insert with the given payload ({@code null} for a NULL column). */
  static RecordChangeEvent<SourceRecord> insert(
      long id, String aggregateType, String aggregateId, String payload) {
    return wrap(
        id,
        ENVELOPE.create(row(id, aggregateType, aggregateId, payload), source(id), Instant.now()));
  }

  /** A row of a table with the aggregate_version column. */
  static final Schema VERSIONED_ROW =
      rowSchema(TABLE, Schema.STRING_SCHEMA, Schema.OPTIONAL_STRING_SCHEMA)
          .field("aggregate_version", Schema.OPTIONAL_INT64_SCHEMA)
          .build();

  static final Envelope VERSIONED_ENVELOPE = envelope(VERSIONED_ROW);

  /** An insert into a table with the aggregate_version column ({@code null}: a NULL value). */
  static RecordChangeEvent<SourceRecord> insertVersioned(
      long id, String aggregateId, Long version) {
    Struct row =
        row(VERSIONED_ROW, id, "order", aggregateId, "{\"n\":" + id + "}")
            .put("aggregate_version", version);
    return wrap(id, VERSIONED_ENVELOPE.create(row, source(id), Instant.now()));
  }

  static RecordChangeEvent<SourceRecord> update(long id) {
    Struct before = row(id, "order", "a", "{}");
    Struct after = row(id, "order", "a", "{}").put("status", "PUBLISHED");
    return wrap(id, ENVELOPE.update(before, after, source(id), Instant.now()));
  }

  static RecordChangeEvent<SourceRecord> delete(long id) {
    return wrap(id, ENVELOPE.delete(row(id, "order", "a", "{}"), source(id), Instant.now()));
  }

  static RecordChangeEvent<SourceRecord> heartbeat(long pos) {
    SourceRecord r =
        OutboxChangeFixtures.heartbeat(
            Map.of("server", "outbox-relay"), Map.of("pos", pos), "outbox-relay");
    return () -> r;
  }

  private static Envelope envelope(Schema row) {
    return Envelope.defineSchema()
        .withName(TABLE + ".Envelope")
        .withRecord(row)
        .withSource(SOURCE)
        .build();
  }

  /** A row image of {@code schema} with a made-up event id and type. */
  private static Struct row(
      Schema schema, long id, String aggregateType, String aggregateId, String payload) {
    return OutboxChangeFixtures.row(
        schema,
        id,
        "00000000-0000-0000-0000-" + String.format("%012d", id),
        aggregateType,
        aggregateId,
        "Happened",
        payload);
  }

  private static Struct source(long pos) {
    return new Struct(SOURCE).put("pos", pos).put("ts_ms", 1_795_900_000_000L + pos);
  }

  private static RecordChangeEvent<SourceRecord> wrap(long pos, Struct value) {
    SourceRecord r =
        new SourceRecord(
            Map.of("server", "outbox-relay"),
            Map.of("pos", pos),
            TABLE,
            null,
            null,
            value.schema(),
            value);
    return () -> r;
  }
}
