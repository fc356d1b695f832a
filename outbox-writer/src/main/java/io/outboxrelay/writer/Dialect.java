package io.outboxrelay.writer;

import java.util.Locale;

/** The SQL dialect of the database holding the outbox table. */
public enum Dialect {
  /** MariaDB 10.6+ and MySQL 8.0+: identifiers quoted with backticks. */
  MYSQL('`'),
  /**
   * PostgreSQL 12+: identifiers quoted with double quotes; the event id, payload and headers are
   * bound with an unspecified type, so that {@code uuid}, {@code jsonb}, {@code json} and text
   * columns all take them.
   */
  POSTGRESQL('"');

  private final char quote;

  Dialect(char quote) {
    this.quote = quote;
  }

  /**
   * The dialect of a database product, as reported by {@link
   * java.sql.DatabaseMetaData#getDatabaseProductName()}.
   *
   * @param productName e.g. {@code MariaDB}, {@code MySQL}, {@code PostgreSQL}; not {@code null}
   * @return the dialect
   * @throws IllegalArgumentException if the product is not supported
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
        "unsupported database '"
            + productName
            + "': the outbox writer supports MariaDB, MySQL and PostgreSQL");
  }

  /** An identifier already checked by {@link Identifiers}, quoted for this dialect. */
  String quote(String identifier) {
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
