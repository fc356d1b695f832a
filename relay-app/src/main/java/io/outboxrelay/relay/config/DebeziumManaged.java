package io.outboxrelay.relay.config;

/**
 * The Debezium settings the relay sets itself, each with what to set instead. A {@code debezium.*}
 * override of one of them is refused when the configuration is loaded. The CDC source sets every
 * one of them from the relay's configuration (an exhaustive {@code switch} over this enum), so a
 * setting cannot be added here without being set there.
 */
public enum DebeziumManaged {
  // The engine and the connector.
  NAME("name", Instead.RELAY_NAME),
  TOPIC_PREFIX("topic.prefix", Instead.RELAY_NAME),
  CONNECTOR_CLASS("connector.class", "set " + RelayConfigKeys.SOURCE_FLAVOR.name()),
  MAX_BATCH_SIZE("max.batch.size", "set " + RelayConfigKeys.CDC_BATCH_SIZE.name()),
  HEARTBEAT_INTERVAL_MS(
      "heartbeat.interval.ms", "set " + RelayConfigKeys.CDC_HEARTBEAT_INTERVAL.name()),
  // The source database, the outbox table and the binlog reader.
  DATABASE_HOSTNAME("database.hostname", Instead.SOURCE),
  DATABASE_PORT("database.port", Instead.SOURCE),
  DATABASE_USER("database.user", Instead.SOURCE),
  DATABASE_PASSWORD("database.password", Instead.SOURCE),
  DATABASE_INCLUDE_LIST("database.include.list", Instead.SOURCE),
  TABLE_INCLUDE_LIST("table.include.list", Instead.SOURCE),
  DATABASE_SERVER_ID("database.server.id", "set " + RelayConfigKeys.CDC_SERVER_ID.name()),
  // Positions and schema history: JDBC stores in the source database, committed by the relay's
  // policy (set on the engine rather than as a property), never on a timer.
  OFFSET_STORAGE("offset.storage", Instead.POSITIONS),
  OFFSET_COMMIT_POLICY("offset.commit.policy", Instead.POSITIONS),
  OFFSET_FLUSH_INTERVAL_MS("offset.flush.interval.ms", Instead.POSITIONS),
  OFFSET_STORAGE_JDBC_CONNECTION_URL("offset.storage.jdbc.connection.url", Instead.POSITIONS),
  OFFSET_STORAGE_JDBC_CONNECTION_USER("offset.storage.jdbc.connection.user", Instead.POSITIONS),
  OFFSET_STORAGE_JDBC_CONNECTION_PASSWORD(
      "offset.storage.jdbc.connection.password", Instead.POSITIONS),
  OFFSET_STORAGE_JDBC_TABLE_NAME("offset.storage.jdbc.table.name", Instead.POSITIONS),
  SCHEMA_HISTORY_INTERNAL("schema.history.internal", Instead.POSITIONS),
  SCHEMA_HISTORY_INTERNAL_JDBC_CONNECTION_URL(
      "schema.history.internal.jdbc.connection.url", Instead.POSITIONS),
  SCHEMA_HISTORY_INTERNAL_JDBC_CONNECTION_USER(
      "schema.history.internal.jdbc.connection.user", Instead.POSITIONS),
  SCHEMA_HISTORY_INTERNAL_JDBC_CONNECTION_PASSWORD(
      "schema.history.internal.jdbc.connection.password", Instead.POSITIONS),
  SCHEMA_HISTORY_INTERNAL_JDBC_TABLE_NAME(
      "schema.history.internal.jdbc.table.name", Instead.POSITIONS);

  private final String key;
  private final String instead;

  DebeziumManaged(String key, String instead) {
    this.key = key;
    this.instead = instead;
  }

  /**
   * The Debezium setting.
   *
   * @return its name, without the {@code debezium.} prefix
   */
  public String key() {
    return key;
  }

  /**
   * What to set instead of a Debezium setting the relay manages.
   *
   * @param key the setting without the {@code debezium.} prefix
   * @return the advice, or {@code null} when the setting may be overridden
   */
  static String insteadOf(String key) {
    for (DebeziumManaged m : values()) {
      if (m.key.equals(key)) {
        return m.instead;
      }
    }
    return null;
  }

  /** Advice shared by several settings. */
  private static final class Instead {
    static final String RELAY_NAME = "set " + RelayConfigKeys.RELAY_NAME.name();
    static final String SOURCE = "set it with the source.* keys";
    static final String POSITIONS =
        "positions are always stored in "
            + RelayConfigKeys.SOURCE_DATABASE.name()
            + " ("
            + RelayConfigKeys.CDC_OFFSETS_TABLE.name()
            + ")";
  }
}
