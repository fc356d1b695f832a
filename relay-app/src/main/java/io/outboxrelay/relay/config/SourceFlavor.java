package io.outboxrelay.relay.config;

import io.debezium.connector.mariadb.MariaDbConnectorConfig;
import io.debezium.connector.mysql.MySqlConnectorConfig;
import io.debezium.connector.postgresql.PostgresConnectorConfig;
import java.time.Duration;

/**
 * The kind of source database, as {@code source.flavor} names it, with what the configuration needs
 * to know of it (its port, its driver's URL, what CDC can do on it, its Debezium connector's
 * settings). What differs in SQL is the relay's {@code source.SqlDialect}, one per flavor, which
 * asks its flavor for what both know.
 */
public enum SourceFlavor {
  /** MariaDB 10.6 or later. CDC uses Debezium's MariaDB connector. */
  MARIADB(3306, "jdbc:mariadb://") {
    @Override
    public boolean snapshotsAtBinlogPosition() {
      return true;
    }

    @Override
    DebeziumKeys.Connector debeziumConnector() {
      return new DebeziumKeys.Connector(
          "MariaDB", MariaDbConnectorConfig.ALL_FIELDS, MariaDbConnectorConfig.class);
    }
  },
  /** MySQL 8.0 or later. CDC uses Debezium's MySQL connector. */
  MYSQL(3306, "jdbc:mysql://") {
    @Override
    DebeziumKeys.Connector debeziumConnector() {
      return new DebeziumKeys.Connector(
          "MySQL", MySqlConnectorConfig.ALL_FIELDS, MySqlConnectorConfig.class);
    }
  },
  /**
   * PostgreSQL 12 or later. CDC uses Debezium's PostgreSQL connector with {@code pgoutput}, a
   * publication and a replication slot; it has no binlog.
   */
  POSTGRESQL(5432, "jdbc:postgresql://") {
    @Override
    public boolean readsBinlog() {
      return false;
    }

    @Override
    DebeziumKeys.Connector debeziumConnector() {
      return new DebeziumKeys.Connector(
          "PostgreSQL", PostgresConnectorConfig.ALL_FIELDS, PostgresConnectorConfig.class);
    }

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
   * @return true for every flavor: MariaDB and MySQL read the binlog, PostgreSQL a replication slot
   */
  public boolean supportsCdc() {
    return true;
  }

  /**
   * Whether CDC reads this database's binlog (and so needs {@code cdc.server.id}, binlog settings,
   * schema history): what the binlog-only parts of the relay (first start at a binlog position,
   * hand-offs, retention, position import) need.
   *
   * @return true for MariaDB and MySQL, false for PostgreSQL
   */
  public boolean readsBinlog() {
    return true;
  }

  /**
   * Whether a consistent snapshot can report the binlog position it was taken at ({@code
   * binlog_snapshot_file}/{@code binlog_snapshot_position}), with the GTIDs completed there: what a
   * first start, a hand-off, CDC retention and a position reset need to name one exact point.
   *
   * @return true for MariaDB
   */
  public boolean snapshotsAtBinlogPosition() {
    return false;
  }

  /**
   * The Debezium connector CDC runs on this flavor, for checking {@code debezium.*} settings.
   *
   * @return the connector's name and settings
   * @throws UnsupportedOperationException for a flavor without CDC
   */
  DebeziumKeys.Connector debeziumConnector() {
    throw new UnsupportedOperationException(this + " has no CDC mode");
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
