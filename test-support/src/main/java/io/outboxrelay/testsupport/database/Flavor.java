package io.outboxrelay.testsupport.database;

import java.util.Locale;

/**
 * The kind of server a test database lives on. The test support's own type, so that it needs none
 * of the relay's classes; {@link #configName()} is the value of the relay's {@code source.flavor}.
 */
public enum Flavor {
  /** MariaDB, the private server of the local stack. */
  MARIADB("jdbc:mariadb://"),
  /** MySQL, e.g. in a container. */
  MYSQL("jdbc:mysql://"),
  /** PostgreSQL, the machine's service. */
  POSTGRESQL("jdbc:postgresql://");

  private final String jdbcPrefix;

  Flavor(String jdbcPrefix) {
    this.jdbcPrefix = jdbcPrefix;
  }

  /** The JDBC URL prefix, e.g. {@code jdbc:mariadb://}. */
  public String jdbcPrefix() {
    return jdbcPrefix;
  }

  /** The name in configuration files, e.g. {@code mariadb}. */
  public String configName() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** The directory under {@code config/} holding this flavor's DDL. */
  public String configDir() {
    return this == POSTGRESQL ? "config/postgresql" : "config/mysql";
  }
}
