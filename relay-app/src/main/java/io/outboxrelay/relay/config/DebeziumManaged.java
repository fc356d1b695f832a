package io.outboxrelay.relay.config;

/**
 * The Debezium settings the relay sets itself, each with what to set instead. A {@code debezium.*}
 * override of one of them is refused when the configuration is loaded. The CDC source sets every
 * one of them from the relay's configuration (an exhaustive {@code switch} over this enum), so a
 * setting cannot be added here without being set there.
 */
public enum DebeziumManaged {
  /** The engine's name. */
  NAME("name", Instead.RELAY_NAME),
  /** The prefix of Debezium's own topic names. */
  TOPIC_PREFIX("topic.prefix", Instead.RELAY_NAME),
  /** The connector, picked by the source flavor. */
  CONNECTOR_CLASS("connector.class", "set " + RelayConfigKeys.SOURCE_FLAVOR.name()),
  /** The source host. */
  DATABASE_HOSTNAME("database.hostname", Instead.SOURCE),
  /** The source port. */
  DATABASE_PORT("database.port", Instead.SOURCE),
  /** The relay's database user. */
  DATABASE_USER("database.user", Instead.SOURCE),
  /** That user's password. */
  DATABASE_PASSWORD("database.password", Instead.SOURCE),
  /** The binlog reader's server id. */
  DATABASE_SERVER_ID("database.server.id", "set " + RelayConfigKeys.CDC_SERVER_ID.name()),
  /** The source database. */
  DATABASE_INCLUDE_LIST("database.include.list", Instead.SOURCE),
  /** The outbox table. */
  TABLE_INCLUDE_LIST("table.include.list", Instead.SOURCE),
  /** Events per batch. */
  MAX_BATCH_SIZE("max.batch.size", "set " + RelayConfigKeys.CDC_BATCH_SIZE.name()),
  /** Heartbeats while the outbox table is quiet. */
  HEARTBEAT_INTERVAL_MS(
      "heartbeat.interval.ms", "set " + RelayConfigKeys.CDC_HEARTBEAT_INTERVAL.name()),
  /** The JDBC position store. */
  OFFSET_STORAGE("offset.storage", Instead.POSITIONS),
  /** When positions are committed: after acknowledged events (set on the engine, not here). */
  OFFSET_COMMIT_POLICY("offset.commit.policy", Instead.POSITIONS),
  /** Positions are committed by the relay's policy, never on a timer. */
  OFFSET_FLUSH_INTERVAL_MS("offset.flush.interval.ms", Instead.POSITIONS),
  /** The position store's connection. */
  OFFSET_STORAGE_JDBC_CONNECTION_URL("offset.storage.jdbc.connection.url", Instead.POSITIONS),
  /** The position store's user. */
  OFFSET_STORAGE_JDBC_CONNECTION_USER("offset.storage.jdbc.connection.user", Instead.POSITIONS),
  /** The position store's password. */
  OFFSET_STORAGE_JDBC_CONNECTION_PASSWORD(
      "offset.storage.jdbc.connection.password", Instead.POSITIONS),
  /** The position table. */
  OFFSET_STORAGE_JDBC_TABLE_NAME("offset.storage.jdbc.table.name", Instead.POSITIONS),
  /** The JDBC schema history store. */
  SCHEMA_HISTORY_INTERNAL("schema.history.internal", Instead.POSITIONS),
  /** The schema history store's connection. */
  SCHEMA_HISTORY_INTERNAL_JDBC_CONNECTION_URL(
      "schema.history.internal.jdbc.connection.url", Instead.POSITIONS),
  /** The schema history store's user. */
  SCHEMA_HISTORY_INTERNAL_JDBC_CONNECTION_USER(
      "schema.history.internal.jdbc.connection.user", Instead.POSITIONS),
  /** The schema history store's password. */
  SCHEMA_HISTORY_INTERNAL_JDBC_CONNECTION_PASSWORD(
      "schema.history.internal.jdbc.connection.password", Instead.POSITIONS),
  /** The schema history table. */
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
   * What to set instead of overriding it.
   *
   * @return the advice, naming the relay's keys
   */
  public String instead() {
    return instead;
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
