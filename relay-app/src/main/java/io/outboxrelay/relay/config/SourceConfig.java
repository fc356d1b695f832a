package io.outboxrelay.relay.config;

import java.time.Duration;

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
 */
public record SourceConfig(
    SourceFlavor flavor,
    String host,
    int port,
    String database,
    String user,
    Secret password,
    String table,
    Duration connectTimeout) {

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
        v.get(RelayConfigKeys.SOURCE_CONNECT_TIMEOUT));
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
    String options =
        flavor == SourceFlavor.POSTGRESQL
            ? "connectTimeout=" + Math.max(1, connectTimeout.toSeconds())
            : "connectTimeout=" + connectTimeout.toMillis() + "&nullDatabaseMeansCurrent=true";
    return flavor.jdbcPrefix() + host + ":" + port + "/" + database + "?" + options;
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
