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
    return of(
        flavor,
        host,
        port,
        database,
        user,
        password,
        table,
        connectTimeout,
        ColumnMapping.DEFAULT,
        "id",
        Set.of());
  }

  /** A source with other column settings. */
  public static SourceConfig of(
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
    return new SourceConfig(
        flavor,
        host,
        port,
        database,
        user,
        password,
        table,
        connectTimeout,
        columns,
        sequenceColumn,
        requiredOptionalColumns);
  }

  /** A MariaDB source {@code app.outbox_events} on {@code h:3306}, for tests of statements. */
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
