package io.outboxrelay.router;

import java.util.Locale;

/**
 * The SQL dialect of a database that holds the outbox table or a consumer's tables, and which
 * database product speaks which: the one answer the writer, the Spring starter, the consumer
 * library and the relay's checks share. Immutable.
 */
public enum Dialect {
  /**
   * MariaDB 10.6+ and MySQL 8.0+: identifiers quoted with backticks; schemas in {@code
   * config/mysql}.
   */
  MYSQL('`'),
  /**
   * PostgreSQL 12+: identifiers quoted with double quotes; schemas in {@code config/postgresql}.
   */
  POSTGRESQL('"');

  private final char quote;

  Dialect(char quote) {
    this.quote = quote;
  }

  /**
   * The dialect of a database product, as JDBC's {@code DatabaseMetaData.getDatabaseProductName()}
   * reports it.
   *
   * @param productName e.g. {@code MariaDB}, {@code MySQL}, {@code PostgreSQL}; not {@code null}
   * @return the dialect
   * @throws IllegalArgumentException if the product is none of MariaDB, MySQL and PostgreSQL; the
   *     message names the product
   */
  public static Dialect fromProductName(String productName) {
    String name = productName.toLowerCase(Locale.ROOT);
    if (name.contains("mariadb") || name.contains("mysql")) {
      return MYSQL;
    }
    if (name.contains("postgresql")) {
      return POSTGRESQL;
    }
    throw new IllegalArgumentException(
        "unsupported database '" + productName + "': supported are MariaDB, MySQL and PostgreSQL");
  }

  /**
   * The name of this dialect's folder of schema files under {@code config/}.
   *
   * @return {@code mysql} or {@code postgresql}
   */
  public String schemaFolder() {
    return name().toLowerCase(Locale.ROOT);
  }

  /**
   * Quotes an identifier for this dialect, each part of a {@code schema.table} name apart.
   *
   * @param identifier a name {@link Identifiers} accepts; not {@code null}
   * @return e.g. {@code `app`.`outbox`} or {@code "app"."outbox"}
   */
  public String quote(String identifier) {
    StringBuilder quoted = new StringBuilder(identifier.length() + 4);
    int start = 0;
    int dot;
    while ((dot = identifier.indexOf('.', start)) >= 0) {
      quoted.append(quote).append(identifier, start, dot).append(quote).append('.');
      start = dot + 1;
    }
    return quoted
        .append(quote)
        .append(identifier, start, identifier.length())
        .append(quote)
        .toString();
  }
}
