package io.outboxrelay.relay.config;

import java.util.Locale;

/**
 * The Debezium settings the relay sets itself, each with what to set instead; a constant's name is
 * the setting's, upper case with underscores for dots. A {@code debezium.*} override of one of them
 * is refused when the configuration is loaded. The CDC source sets every one of them from the
 * relay's configuration (an exhaustive {@code switch} over this enum), so a setting cannot be added
 * here without being set there.
 */
public enum DebeziumManaged {
  // The engine and the connector.
  NAME(Instead.RELAY_NAME),
  TOPIC_PREFIX(Instead.RELAY_NAME),
  CONNECTOR_CLASS("set " + RelayConfigKeys.SOURCE_FLAVOR.name()),
  MAX_BATCH_SIZE("set " + RelayConfigKeys.CDC_BATCH_SIZE.name()),
  HEARTBEAT_INTERVAL_MS("set " + RelayConfigKeys.CDC_HEARTBEAT_INTERVAL.name()),
  // The source database, the outbox table and the binlog reader.
  DATABASE_HOSTNAME(Instead.SOURCE),
  DATABASE_PORT(Instead.SOURCE),
  DATABASE_USER(Instead.SOURCE),
  DATABASE_PASSWORD(Instead.SOURCE),
  DATABASE_INCLUDE_LIST(Instead.SOURCE),
  TABLE_INCLUDE_LIST(Instead.SOURCE),
  DATABASE_SERVER_ID("set " + RelayConfigKeys.CDC_SERVER_ID.name()),
  // Positions and schema history: JDBC stores in the source database, committed by the relay's
  // policy (set on the engine rather than as a property), never on a timer.
  OFFSET_STORAGE(Instead.POSITIONS),
  OFFSET_COMMIT_POLICY(Instead.POSITIONS),
  OFFSET_FLUSH_INTERVAL_MS(Instead.POSITIONS),
  OFFSET_STORAGE_JDBC_CONNECTION_URL(Instead.POSITIONS),
  OFFSET_STORAGE_JDBC_CONNECTION_USER(Instead.POSITIONS),
  OFFSET_STORAGE_JDBC_CONNECTION_PASSWORD(Instead.POSITIONS),
  OFFSET_STORAGE_JDBC_TABLE_NAME(Instead.POSITIONS),
  SCHEMA_HISTORY_INTERNAL(Instead.POSITIONS),
  SCHEMA_HISTORY_INTERNAL_JDBC_CONNECTION_URL(Instead.POSITIONS),
  SCHEMA_HISTORY_INTERNAL_JDBC_CONNECTION_USER(Instead.POSITIONS),
  SCHEMA_HISTORY_INTERNAL_JDBC_CONNECTION_PASSWORD(Instead.POSITIONS),
  SCHEMA_HISTORY_INTERNAL_JDBC_TABLE_NAME(Instead.POSITIONS);

  private final String instead;

  DebeziumManaged(String instead) {
    this.instead = instead;
  }

  /**
   * The Debezium setting.
   *
   * @return its name, without the {@code debezium.} prefix
   */
  public String key() {
    return name().toLowerCase(Locale.ROOT).replace('_', '.');
  }

  /**
   * What to set instead of a Debezium setting the relay manages.
   *
   * @param key the setting without the {@code debezium.} prefix
   * @return the advice, or {@code null} when the setting may be overridden
   */
  static String insteadOf(String key) {
    for (DebeziumManaged m : values()) {
      if (m.key().equals(key)) {
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
