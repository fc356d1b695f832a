package io.outboxrelay.relay.config;

import io.outboxrelay.router.ColumnMapping;
import java.time.Duration;
import java.util.Set;

/** Source settings for unit tests, without a properties file: the default column layout. */
public final class Sources {

  private Sources() {}

  /** A source with the relay's own columns ({@link ColumnMapping#DEFAULT}, sequence {@code id}). */
  public static SourceConfig of(
      SourceFlavor flavor,
      String host,
      int port,
      String database,
      String user,
      Secret password,
      String table,
      Duration connectTimeout) {
    return new SourceConfig(
        flavor,
        host,
        port,
        database,
        user,
        password,
        table,
        connectTimeout,
        ColumnMapping.DEFAULT,
        ColumnMapping.DEFAULT_SEQUENCE,
        Set.of());
  }

  /**
   * A MariaDB source ({@code h:3306/app}, table {@code outbox}) with other column settings.
   *
   * @param columns the column mapping
   * @param sequenceColumn the ordering column
   * @param requiredOptionalColumns the optional columns the file sets
   */
  public static SourceConfig mariaDb(
      ColumnMapping columns, String sequenceColumn, Set<String> requiredOptionalColumns) {
    return new SourceConfig(
        SourceFlavor.MARIADB,
        "h",
        3306,
        "app",
        "u",
        new Secret(""),
        "outbox",
        Duration.ofSeconds(1),
        columns,
        sequenceColumn,
        requiredOptionalColumns);
  }

  /**
   * A source {@code app.outbox_events} on {@code h} at the flavor's port, for tests of statements.
   */
  public static SourceConfig of(SourceFlavor flavor) {
    return of(
        flavor,
        "h",
        flavor.defaultPort(),
        "app",
        "u",
        new Secret(""),
        "outbox_events",
        Duration.ofSeconds(1));
  }
}
