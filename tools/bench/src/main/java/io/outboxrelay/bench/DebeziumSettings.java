package io.outboxrelay.bench;

import io.outboxrelay.testsupport.outbox.OutboxDatabase;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The settings the Debezium pipelines of the peers group share, so that Kafka Connect and Debezium
 * Server read the same rows and route them alike: Debezium's MariaDB connector on the relay's
 * outbox table, and Debezium's outbox {@code EventRouter} with its fields mapped to the relay's
 * columns (key {@code aggregate_id}, header {@code id} from {@code event_id}, the topic from {@code
 * aggregate_type}, the headers {@code event_type}, {@code aggregate_type}, {@code aggregate_id}),
 * the payload as the value. Where the offsets, the schema history and the converters live is each
 * pipeline's own.
 */
final class DebeziumSettings {

  private DebeziumSettings() {}

  /**
   * The connector's settings for the outbox table of {@code db}: no snapshot, no schema-change
   * events, a random replica server id.
   *
   * @param name the pipeline's name: the connector's {@code topic.prefix}
   */
  static Map<String, String> mariaDbConnector(OutboxDatabase db, String name) {
    Map<String, String> c = new LinkedHashMap<>();
    c.put("connector.class", "io.debezium.connector.mariadb.MariaDbConnector");
    c.put("database.hostname", db.host());
    c.put("database.port", String.valueOf(db.port()));
    c.put("database.user", db.relayUser());
    c.put("database.password", db.password());
    c.put(
        "database.server.id",
        String.valueOf(ThreadLocalRandom.current().nextInt(1_000_000, 2_000_000)));
    c.put("topic.prefix", name);
    c.put("database.include.list", db.name());
    c.put("table.include.list", db.name() + ".outbox_events");
    c.put(
        "column.include.list",
        db.name()
            + "\\.outbox_events\\.(id|event_id|aggregate_type|aggregate_id|event_type|payload)");
    c.put("snapshot.mode", "no_data");
    c.put("snapshot.locking.mode", "none");
    c.put("include.schema.changes", "false");
    return c;
  }

  /**
   * The {@code EventRouter}'s settings, without the transform's prefix ({@code type} included).
   *
   * @param topicPrefix what the router puts before the aggregate type to name the topic
   */
  static Map<String, String> eventRouter(String topicPrefix) {
    Map<String, String> t = new LinkedHashMap<>();
    t.put("type", "io.debezium.transforms.outbox.EventRouter");
    t.put("table.field.event.id", "event_id");
    t.put("table.field.event.key", "aggregate_id");
    t.put("table.field.event.payload", "payload");
    t.put("route.by.field", "aggregate_type");
    t.put("route.topic.replacement", topicPrefix + "${routedByValue}");
    t.put(
        "table.fields.additional.placement",
        "event_type:header:event_type,aggregate_type:header:aggregate_type,"
            + "aggregate_id:header:aggregate_id");
    return t;
  }

  /** Copies {@code settings} into {@code into}, each key after {@code prefix}. */
  static void putAll(Map<String, String> into, String prefix, Map<String, String> settings) {
    settings.forEach((k, v) -> into.put(prefix + k, v));
  }
}
