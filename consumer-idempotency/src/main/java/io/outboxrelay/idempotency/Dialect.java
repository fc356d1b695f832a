package io.outboxrelay.idempotency;

import java.util.Locale;

/** The SQL dialect of the consumer's database. */
public enum Dialect {
  /**
   * MariaDB 10.6+ and MySQL 8.0+: {@code INSERT IGNORE}, schema in {@code
   * config/mysql/processed-events.sql}.
   */
  MYSQL,
  /**
   * PostgreSQL 12+: {@code INSERT ... ON CONFLICT DO NOTHING}, schema in {@code
   * config/postgresql/processed-events.sql}.
   */
  POSTGRESQL;

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
            + "': the idempotent processor supports MariaDB, MySQL and PostgreSQL");
  }
}
