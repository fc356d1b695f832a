package io.outboxrelay.relay.source.cdc;

import io.debezium.data.Envelope;
import io.debezium.engine.RecordChangeEvent;
import java.time.Instant;
import java.util.Map;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.source.SourceRecord;

/** Builds Debezium change records shaped like the MariaDB connector's, for unit tests. */
final class ChangeRecords {

  static final Schema ROW =
      SchemaBuilder.struct()
          .name("outbox-relay.app.outbox_events.Value")
          .field("id", Schema.INT64_SCHEMA)
          .field("event_id", Schema.STRING_SCHEMA)
          .field("aggregate_type", Schema.STRING_SCHEMA)
          .field("aggregate_id", Schema.STRING_SCHEMA)
          .field("event_type", Schema.STRING_SCHEMA)
          .field("payload", Schema.OPTIONAL_STRING_SCHEMA)
          .field("created_at", Schema.OPTIONAL_STRING_SCHEMA)
          .field("status", Schema.OPTIONAL_STRING_SCHEMA)
          .build();

  static final Schema SOURCE =
      SchemaBuilder.struct()
          .name("io.debezium.connector.mariadb.Source")
          .field("pos", Schema.INT64_SCHEMA)
          .field("ts_ms", Schema.INT64_SCHEMA)
          .build();

  static final Envelope ENVELOPE =
      Envelope.defineSchema()
          .withName("outbox-relay.app.outbox_events.Envelope")
          .withRecord(ROW)
          .withSource(SOURCE)
          .build();

  private ChangeRecords() {}

  static Struct row(long id, String aggregateType, String aggregateId, String payload) {
    return new Struct(ROW)
        .put("id", id)
        .put("event_id", "00000000-0000-0000-0000-" + String.format("%012d", id))
        .put("aggregate_type", aggregateType)
        .put("aggregate_id", aggregateId)
        .put("event_type", "Happened")
        .put("payload", payload)
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
      SchemaBuilder.struct()
          .name("outbox-relay.app.outbox_events.Value")
          .field("id", Schema.INT64_SCHEMA)
          .field("event_id", Schema.STRING_SCHEMA)
          .field("aggregate_type", Schema.STRING_SCHEMA)
          .field("aggregate_id", Schema.STRING_SCHEMA)
          .field("event_type", Schema.STRING_SCHEMA)
          .field("payload", Schema.OPTIONAL_STRING_SCHEMA)
          .field("aggregate_version", Schema.OPTIONAL_INT64_SCHEMA)
          .build();

  static final Envelope VERSIONED_ENVELOPE =
      Envelope.defineSchema()
          .withName("outbox-relay.app.outbox_events.Envelope")
          .withRecord(VERSIONED_ROW)
          .withSource(SOURCE)
          .build();

  /** An insert into a table with the aggregate_version column ({@code null}: a NULL value). */
  static RecordChangeEvent<SourceRecord> insertVersioned(
      long id, String aggregateId, Long version) {
    Struct row =
        new Struct(VERSIONED_ROW)
            .put("id", id)
            .put("event_id", "00000000-0000-0000-0000-" + String.format("%012d", id))
            .put("aggregate_type", "order")
            .put("aggregate_id", aggregateId)
            .put("event_type", "Happened")
            .put("payload", "{\"n\":" + id + "}")
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
    Schema hb =
        SchemaBuilder.struct()
            .name("io.debezium.connector.common.Heartbeat")
            .field("ts_ms", Schema.INT64_SCHEMA)
            .build();
    SourceRecord r =
        new SourceRecord(
            Map.of("server", "outbox-relay"),
            Map.of("pos", pos),
            "__debezium-heartbeat.outbox-relay",
            hb,
            new Struct(hb).put("ts_ms", 1L));
    return () -> r;
  }

  private static Struct source(long pos) {
    return new Struct(SOURCE).put("pos", pos).put("ts_ms", 1_795_900_000_000L + pos);
  }

  private static RecordChangeEvent<SourceRecord> wrap(long pos, Struct value) {
    SourceRecord r =
        new SourceRecord(
            Map.of("server", "outbox-relay"),
            Map.of("pos", pos),
            "outbox-relay.app.outbox_events",
            null,
            null,
            value.schema(),
            value);
    return () -> r;
  }
}
