package io.outboxrelay.change;

import java.util.Map;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.source.SourceRecord;

/**
 * Pieces of Debezium change records shaped like the MariaDB connector's: outbox row images and
 * heartbeats. Shared, as this module's test jar, by the tests of the relay's CDC mode and of the
 * Kafka Connect transform, which read their records with the same {@link ChangeRecordReader}.
 * Stateless and thread-safe.
 */
public final class OutboxChangeFixtures {

  private OutboxChangeFixtures() {}

  /**
   * The schema of an outbox row image with the six columns the reader needs, as a builder so that a
   * test can add columns or make it optional.
   *
   * @param table the fully qualified table, e.g. {@code srv.app.outbox_events}; the schema is named
   *     {@code <table>.Value} as Debezium names it
   * @param eventIdSchema the schema of {@code event_id} (text or bytes)
   * @param payloadSchema the schema of {@code payload} (text or bytes)
   * @return a struct builder with {@code id, event_id, aggregate_type, aggregate_id, event_type,
   *     payload} in that order
   */
  public static SchemaBuilder rowSchema(String table, Schema eventIdSchema, Schema payloadSchema) {
    return SchemaBuilder.struct()
        .name(table + ".Value")
        .field("id", Schema.INT64_SCHEMA)
        .field("event_id", eventIdSchema)
        .field("aggregate_type", Schema.STRING_SCHEMA)
        .field("aggregate_id", Schema.STRING_SCHEMA)
        .field("event_type", Schema.STRING_SCHEMA)
        .field("payload", payloadSchema);
  }

  /**
   * A row image with the six outbox columns set; further columns of {@code schema} stay unset for
   * the caller to {@link Struct#put put}.
   *
   * @param schema a schema from {@link #rowSchema}, possibly with more columns
   * @return the row, not validated
   */
  public static Struct row(
      Schema schema,
      long id,
      Object eventId,
      String aggregateType,
      String aggregateId,
      String eventType,
      Object payload) {
    return new Struct(schema)
        .put("id", id)
        .put("event_id", eventId)
        .put("aggregate_type", aggregateType)
        .put("aggregate_id", aggregateId)
        .put("event_type", eventType)
        .put("payload", payload);
  }

  /**
   * A heartbeat record as Debezium emits it on {@code __debezium-heartbeat.<server>}: no key, a
   * value named {@code io.debezium.connector.common.Heartbeat}.
   *
   * @param partition the source partition
   * @param offset the source offset
   * @param server the connector's topic prefix
   * @return the record
   */
  public static SourceRecord heartbeat(
      Map<String, ?> partition, Map<String, ?> offset, String server) {
    Schema heartbeat =
        SchemaBuilder.struct()
            .name("io.debezium.connector.common.Heartbeat")
            .field("ts_ms", Schema.INT64_SCHEMA)
            .build();
    return new SourceRecord(
        partition,
        offset,
        "__debezium-heartbeat." + server,
        heartbeat,
        new Struct(heartbeat).put("ts_ms", 1L));
  }
}
