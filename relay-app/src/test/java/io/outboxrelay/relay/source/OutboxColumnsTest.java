package io.outboxrelay.relay.source;

import static org.assertj.core.api.Assertions.assertThat;

import io.outboxrelay.relay.config.RelayMode;
import io.outboxrelay.relay.config.SourceFlavor;
import io.outboxrelay.relay.source.OutboxColumns.Column;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class OutboxColumnsTest {

  /** The columns of config/mysql/outbox-schema.sql as MariaDB's catalog describes them. */
  private static Map<String, Column> mariaDbSchema() {
    Map<String, Column> m = new LinkedHashMap<>();
    put(m, "id", "bigint", "bigint(20) unsigned");
    put(m, "event_id", "char", "char(36)");
    put(m, "aggregate_type", "varchar", "varchar(255)");
    put(m, "aggregate_id", "varchar", "varchar(255)");
    put(m, "event_type", "varchar", "varchar(255)");
    put(m, "payload", "longtext", "longtext"); // MariaDB's JSON
    put(m, "aggregate_version", "bigint", "bigint(20)");
    return m;
  }

  /** The columns of config/postgresql/outbox-schema.sql as pg_attribute describes them. */
  private static Map<String, Column> postgresSchema() {
    Map<String, Column> m = new LinkedHashMap<>();
    put(m, "id", "bigint", "bigint");
    put(m, "event_id", "uuid", "uuid");
    put(m, "aggregate_type", "character varying", "character varying(255)");
    put(m, "aggregate_id", "character varying", "character varying(255)");
    put(m, "event_type", "character varying", "character varying(255)");
    put(m, "payload", "jsonb", "jsonb");
    put(m, "aggregate_version", "bigint", "bigint");
    return m;
  }

  private static void put(Map<String, Column> m, String name, String type, String declared) {
    m.put(name, new Column(name, type, declared));
  }

  @Test
  void acceptsTheShippedSchemasInEveryModeTheyServe() {
    assertThat(
            OutboxColumns.typeProblems(mariaDbSchema(), SourceFlavor.MARIADB, RelayMode.CDC, "t"))
        .isEmpty();
    assertThat(
            OutboxColumns.typeProblems(
                mariaDbSchema(), SourceFlavor.MARIADB, RelayMode.POLLING, "t"))
        .isEmpty();
    assertThat(
            OutboxColumns.typeProblems(
                postgresSchema(), SourceFlavor.POSTGRESQL, RelayMode.POLLING, "t"))
        .isEmpty();
  }

  @Test
  void acceptsOtherTextTypesEnumsAndMySqlJson() {
    Map<String, Column> m = mariaDbSchema();
    put(m, "event_id", "varchar", "varchar(64)");
    put(m, "aggregate_type", "enum", "enum('order','customer')");
    put(m, "aggregate_id", "char", "char(36)");
    put(m, "event_type", "text", "text");
    put(m, "payload", "json", "json");

    assertThat(OutboxColumns.typeProblems(m, SourceFlavor.MYSQL, RelayMode.CDC, "t")).isEmpty();
    assertThat(OutboxColumns.typeProblems(m, SourceFlavor.MYSQL, RelayMode.POLLING, "t")).isEmpty();
  }

  @Test
  void namesEveryColumnOfAWrongTypeWithTheTypeToGiveIt() {
    Map<String, Column> m = mariaDbSchema();
    put(m, "aggregate_id", "int", "int(11)");
    put(m, "payload", "blob", "blob");

    assertThat(OutboxColumns.typeProblems(m, SourceFlavor.MARIADB, RelayMode.CDC, "shop.outbox"))
        .containsExactly(
            "column shop.outbox.aggregate_id is int(11), which is not text: make it VARCHAR(255)"
                + " as in config/mysql/outbox-schema.sql",
            "column shop.outbox.payload is blob, which is not text: make it JSON or LONGTEXT as in"
                + " config/mysql/outbox-schema.sql");
  }

  @Test
  void acceptsABinaryUuidEventIdInCdcOnlyAndANonNumericIdOutsidePolling() {
    Map<String, Column> m = mariaDbSchema();
    put(m, "event_id", "binary", "binary(16)");
    put(m, "id", "char", "char(36)");

    assertThat(OutboxColumns.typeProblems(m, SourceFlavor.MARIADB, RelayMode.CDC, "t")).isEmpty();
    assertThat(OutboxColumns.typeProblems(m, SourceFlavor.MARIADB, RelayMode.POLLING, "t"))
        .containsExactly(
            "column t.id is char(36), which is not an integer: make it BIGINT UNSIGNED"
                + " AUTO_INCREMENT as in config/mysql/outbox-schema.sql",
            "column t.event_id is binary(16), which is not text: make it CHAR(36) as in"
                + " config/mysql/outbox-schema.sql");
  }

  @Test
  void refusesOtherBinaryEventIdsInCdc() {
    Map<String, Column> m = mariaDbSchema();
    put(m, "event_id", "varbinary", "varbinary(36)");

    assertThat(OutboxColumns.typeProblems(m, SourceFlavor.MARIADB, RelayMode.CDC, "t"))
        .containsExactly(
            "column t.event_id is varbinary(36), which is not text: make it CHAR(36) (or"
                + " BINARY(16)) as in config/mysql/outbox-schema.sql");
  }

  @Test
  void namesPostgresqlTypesInPostgresqlTerms() {
    Map<String, Column> m = postgresSchema();
    put(m, "event_id", "text", "text");
    put(m, "event_type", "integer", "integer");
    put(m, "payload", "bytea", "bytea");

    assertThat(OutboxColumns.typeProblems(m, SourceFlavor.POSTGRESQL, RelayMode.POLLING, "t"))
        .containsExactly(
            "column t.event_type is integer, which is not text: make it varchar(255) as in"
                + " config/postgresql/outbox-schema.sql",
            "column t.payload is bytea, which is not text: make it jsonb, json or text as in"
                + " config/postgresql/outbox-schema.sql");
  }

  @Test
  void leavesMissingColumnsToTheCheckThatListsThem() {
    Map<String, Column> m = mariaDbSchema();
    m.remove("payload");
    m.remove("id");

    assertThat(OutboxColumns.typeProblems(m, SourceFlavor.MARIADB, RelayMode.POLLING, "t"))
        .isEmpty();
  }

  @Test
  void acceptsAnIntegerAggregateVersionOrNoneAndRefusesText() {
    Map<String, Column> without = mariaDbSchema();
    without.remove("aggregate_version");
    assertThat(OutboxColumns.hasAggregateVersion(without)).isFalse();
    assertThat(OutboxColumns.hasAggregateVersion(mariaDbSchema())).isTrue();
    assertThat(OutboxColumns.typeProblems(without, SourceFlavor.MARIADB, RelayMode.CDC, "t"))
        .isEmpty();

    Map<String, Column> m = mariaDbSchema();
    put(m, "aggregate_version", "varchar", "varchar(20)");
    Map<String, Column> pg = postgresSchema();
    put(pg, "aggregate_version", "numeric", "numeric(20,0)");

    assertThat(OutboxColumns.typeProblems(m, SourceFlavor.MARIADB, RelayMode.CDC, "t"))
        .containsExactly(
            "column t.aggregate_version is varchar(20), which is not an integer: make it BIGINT"
                + " NULL as in config/mysql/outbox-schema.sql");
    assertThat(OutboxColumns.typeProblems(pg, SourceFlavor.POSTGRESQL, RelayMode.POLLING, "t"))
        .containsExactly(
            "column t.aggregate_version is numeric(20,0), which is not an integer: make it bigint"
                + " NULL as in config/postgresql/outbox-schema.sql");
  }
}
