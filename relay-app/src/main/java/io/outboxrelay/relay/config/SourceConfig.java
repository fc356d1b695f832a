package io.outboxrelay.relay.config;

import io.outboxrelay.router.ColumnMapping;
import io.outboxrelay.router.HeaderPlacement;
import io.outboxrelay.router.OutboxColumn;
import java.time.Duration;
import java.util.EnumMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;

/**
 * Where the outbox table is and how to reach it. Immutable.
 *
 * @param flavor the kind of database
 * @param host its host
 * @param port its port
 * @param database the database (schema) holding the outbox table
 * @param user the relay's database user
 * @param password that user's password
 * @param table the outbox table's name
 * @param connectTimeout how long one connection attempt may take
 * @param columns which columns of the table hold what the router reads ({@code source.column.*})
 * @param sequenceColumn the integer column that orders the rows ({@code source.column.sequence})
 * @param requiredOptionalColumns the optional columns whose key the file sets: the table must have
 *     them
 */
public record SourceConfig(
    SourceFlavor flavor,
    String host,
    int port,
    String database,
    String user,
    Secret password,
    String table,
    Duration connectTimeout,
    ColumnMapping columns,
    String sequenceColumn,
    Set<String> requiredOptionalColumns) {

  /** Freezes the set. */
  public SourceConfig {
    requiredOptionalColumns = Set.copyOf(requiredOptionalColumns);
  }

  /** Reads the {@code source.*} keys; the port defaults to the flavor's. */
  static SourceConfig from(ConfigValues v) {
    SourceFlavor flavor = v.get(RelayConfigKeys.SOURCE_FLAVOR);
    Integer port = v.get(RelayConfigKeys.SOURCE_PORT);
    return new SourceConfig(
        flavor,
        v.get(RelayConfigKeys.SOURCE_HOST),
        port != null ? port : flavor.defaultPort(),
        v.get(RelayConfigKeys.SOURCE_DATABASE),
        v.get(RelayConfigKeys.SOURCE_USER),
        new Secret(v.get(RelayConfigKeys.SOURCE_PASSWORD)),
        v.get(RelayConfigKeys.SOURCE_TABLE),
        v.get(RelayConfigKeys.SOURCE_CONNECT_TIMEOUT),
        columns(v),
        v.get(RelayConfigKeys.COLUMN_SEQUENCE),
        givenOptional(v));
  }

  /** The column of each {@link OutboxColumn}, from its key, and the placements. */
  private static ColumnMapping columns(ConfigValues v) {
    Map<OutboxColumn, String> names = new EnumMap<>(OutboxColumn.class);
    RelayConfigKeys.COLUMNS.forEach((column, key) -> names.put(column, v.get(key)));
    return ColumnMapping.of(
        names, HeaderPlacement.parseList(v.get(RelayConfigKeys.COLUMN_ADDITIONAL_PLACEMENT)));
  }

  /** The optional columns whose key the file sets. */
  private static Set<String> givenOptional(ConfigValues v) {
    Set<String> given = new LinkedHashSet<>();
    for (OutboxColumn column : OutboxColumn.optionalColumns()) {
      ConfigKey<String> key = RelayConfigKeys.COLUMNS.get(column);
      if (v.isGiven(key)) {
        given.add(v.get(key));
      }
    }
    return given;
  }

  /**
   * A JDBC URL for the relay's own connections (checks, polling) and Debezium's position and schema
   * history stores.
   *
   * <p>On MariaDB and MySQL it sets {@code nullDatabaseMeansCurrent=true} (both drivers know it): a
   * catalog lookup without a database then searches this database only. Debezium's stores look
   * their tables up that way before creating them; with the drivers' default they searched every
   * database of the server, found another relay's tables of the same name, skipped the creation and
   * then failed on their own missing table.
   *
   * @return the URL, without credentials
   */
  public String jdbcUrl() {
    return flavor.jdbcPrefix()
        + host
        + ":"
        + port
        + "/"
        + database
        + "?"
        + flavor.jdbcOptions(connectTimeout);
  }

  /**
   * Where the source is, for messages: {@code mariadb 127.0.0.1:3306/app}.
   *
   * @return a short description without credentials
   */
  public String describe() {
    return flavor.name().toLowerCase(java.util.Locale.ROOT)
        + " "
        + host
        + ":"
        + port
        + "/"
        + database;
  }
}
