package io.outboxrelay.relay.config;

import java.time.Duration;

/**
 * The kind of source database, as {@code source.flavor} names it, with what the configuration needs
 * to know of it (its port, its driver's URL). What differs in SQL is the relay's {@code
 * source.SqlDialect}, one per flavor.
 */
public enum SourceFlavor {
  /** MariaDB 10.6 or later. CDC uses Debezium's MariaDB connector. */
  MARIADB(3306, "jdbc:mariadb://"),
  /** MySQL 8.0 or later. CDC uses Debezium's MySQL connector. */
  MYSQL(3306, "jdbc:mysql://"),
  /** PostgreSQL 12 or later; polling mode only. */
  POSTGRESQL(5432, "jdbc:postgresql://") {
    @Override
    String jdbcOptions(Duration connectTimeout) {
      return "connectTimeout=" + Math.max(1, connectTimeout.toSeconds()); // whole seconds
    }
  };

  private final int defaultPort;
  private final String jdbcPrefix;

  SourceFlavor(int defaultPort, String jdbcPrefix) {
    this.defaultPort = defaultPort;
    this.jdbcPrefix = jdbcPrefix;
  }

  /**
   * The database's usual port.
   *
   * @return the port
   */
  public int defaultPort() {
    return defaultPort;
  }

  /**
   * The JDBC URL prefix of the driver the relay uses for this flavor.
   *
   * @return e.g. {@code jdbc:mariadb://}
   */
  public String jdbcPrefix() {
    return jdbcPrefix;
  }

  /**
   * Whether CDC mode supports this flavor.
   *
   * @return true for MariaDB and MySQL
   */
  public boolean supportsCdc() {
    return this != POSTGRESQL;
  }

  /**
   * The URL parameters of the relay's connections.
   *
   * @param connectTimeout {@code source.connect.timeout}
   * @return the parameters, without {@code ?}
   */
  String jdbcOptions(Duration connectTimeout) {
    return "connectTimeout=" + connectTimeout.toMillis() + "&nullDatabaseMeansCurrent=true";
  }
}
