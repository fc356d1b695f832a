package io.outboxrelay.relay.source;

import static org.assertj.core.api.Assertions.assertThat;

import io.outboxrelay.relay.config.RelayMode;
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
    assertThat(OutboxColumns.typeProblems(mariaDbSchema(), SqlDialect.MARIADB, RelayMode.CDC, "t"))
        .isEmpty();
    assertThat(
            OutboxColumns.typeProblems(mariaDbSchema(), SqlDialect.MARIADB, RelayMode.POLLING, "t"))
        .isEmpty();
    assertThat(
            OutboxColumns.typeProblems(
                postgresSchema(), SqlDialect.POSTGRESQL, RelayMode.POLLING, "t"))
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

    assertThat(OutboxColumns.typeProblems(m, SqlDialect.MYSQL, RelayMode.CDC, "t")).isEmpty();
    assertThat(OutboxColumns.typeProblems(m, SqlDialect.MYSQL, RelayMode.POLLING, "t")).isEmpty();
  }

  @Test
  void namesEveryColumnOfAWrongTypeWithTheTypeToGiveIt() {
    Map<String, Column> m = mariaDbSchema();
    put(m, "aggregate_id", "int", "int(11)");
    put(m, "payload", "blob", "blob");

    assertThat(OutboxColumns.typeProblems(m, SqlDialect.MARIADB, RelayMode.CDC, "shop.outbox"))
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

    assertThat(OutboxColumns.typeProblems(m, SqlDialect.MARIADB, RelayMode.CDC, "t")).isEmpty();
    assertThat(OutboxColumns.typeProblems(m, SqlDialect.MARIADB, RelayMode.POLLING, "t"))
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

    assertThat(OutboxColumns.typeProblems(m, SqlDialect.MARIADB, RelayMode.CDC, "t"))
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

    assertThat(OutboxColumns.typeProblems(m, SqlDialect.POSTGRESQL, RelayMode.POLLING, "t"))
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

    assertThat(OutboxColumns.typeProblems(m, SqlDialect.MARIADB, RelayMode.POLLING, "t")).isEmpty();
  }

  @Test
  void acceptsAnIntegerAggregateVersionOrNoneAndRefusesText() {
    Map<String, Column> without = mariaDbSchema();
    without.remove("aggregate_version");
    assertThat(OutboxColumns.has(without, "aggregate_version")).isFalse();
    assertThat(OutboxColumns.has(mariaDbSchema(), "aggregate_version")).isTrue();
    assertThat(OutboxColumns.typeProblems(without, SqlDialect.MARIADB, RelayMode.CDC, "t"))
        .isEmpty();

    Map<String, Column> m = mariaDbSchema();
    put(m, "aggregate_version", "varchar", "varchar(20)");
    Map<String, Column> pg = postgresSchema();
    put(pg, "aggregate_version", "numeric", "numeric(20,0)");

    assertThat(OutboxColumns.typeProblems(m, SqlDialect.MARIADB, RelayMode.CDC, "t"))
        .containsExactly(
            "column t.aggregate_version is varchar(20), which is not an integer: make it BIGINT"
                + " NULL as in config/mysql/outbox-schema.sql");
    assertThat(OutboxColumns.typeProblems(pg, SqlDialect.POSTGRESQL, RelayMode.POLLING, "t"))
        .containsExactly(
            "column t.aggregate_version is numeric(20,0), which is not an integer: make it bigint"
                + " NULL as in config/postgresql/outbox-schema.sql");
  }

  private static final io.outboxrelay.router.ColumnMapping DEBEZIUM =
      new io.outboxrelay.router.ColumnMapping(
          "id",
          "aggregatetype",
          "aggregateid",
          "type",
          "payload",
          "aggregate_version",
          "headers",
          "tracingspancontext",
          io.outboxrelay.router.HeaderPlacement.parseList("timestamp:header:eventTimestamp"));

  private static io.outboxrelay.relay.config.SourceConfig source(
      io.outboxrelay.router.ColumnMapping columns, String sequence, java.util.Set<String> given) {
    return io.outboxrelay.relay.config.Sources.mariaDb(columns, sequence, given);
  }

  /** Debezium's documented table, as MariaDB's catalog describes it. */
  private static Map<String, Column> debeziumTable() {
    Map<String, Column> m = new LinkedHashMap<>();
    put(m, "id", "char", "char(36)");
    put(m, "aggregatetype", "varchar", "varchar(255)");
    put(m, "aggregateid", "varchar", "varchar(255)");
    put(m, "type", "varchar", "varchar(255)");
    put(m, "timestamp", "timestamp", "timestamp(6)");
    put(m, "payload", "longtext", "longtext");
    put(m, "tracingspancontext", "varchar", "varchar(256)");
    return m;
  }

  @Test
  void acceptsDebeziumsTableWithItsColumnSettingsInCdcMode() {
    var source = source(DEBEZIUM, "relay_seq", java.util.Set.of());
    assertThat(
            OutboxColumns.missingProblems(
                debeziumTable(), source, RelayMode.CDC, "app.outbox", "ddl.sql"))
        .isEmpty();
    assertThat(
            OutboxColumns.typeProblems(
                debeziumTable(), SqlDialect.MARIADB, DEBEZIUM, "relay_seq", RelayMode.CDC, "t"))
        .isEmpty();
  }

  @Test
  void namesTheKeyAndTheColumnOfEveryMappedColumnTheTableLacks() {
    Map<String, Column> m = debeziumTable();
    m.remove("aggregateid");
    m.remove("timestamp");
    var source = source(DEBEZIUM, "relay_seq", java.util.Set.of("headers"));

    assertThat(OutboxColumns.missingProblems(m, source, RelayMode.POLLING, "app.outbox", "x.sql"))
        .containsExactly(
            "table app.outbox has no column relay_seq (source.column.sequence, the row sequence):"
                + " create it as in x.sql, or set source.column.sequence to the column that holds"
                + " the row sequence",
            "table app.outbox has no column aggregateid (source.column.aggregate.id, the aggregate"
                + " id): create it as in x.sql, or set source.column.aggregate.id to the column"
                + " that holds the aggregate id",
            "table app.outbox has no column headers (source.column.headers, the application"
                + " headers): create it as in x.sql, or set source.column.headers to the column that"
                + " holds the application headers",
            "table app.outbox has no column timestamp (source.column.additional.placement, a"
                + " header): create it as in x.sql, or remove it from"
                + " source.column.additional.placement");
    // CDC needs no sequence, and optional columns whose key is not set may be missing.
    assertThat(
            OutboxColumns.missingProblems(
                debeziumTable(),
                source(DEBEZIUM, "relay_seq", java.util.Set.of()),
                RelayMode.CDC,
                "t",
                "x"))
        .isEmpty();
  }

  @Test
  void namesHeadersTraceContextAndPlacedColumnsOfTypesTheRelayCannotPublish() {
    Map<String, Column> m = debeziumTable();
    put(m, "headers", "int", "int(11)");
    put(m, "tracingspancontext", "blob", "blob");
    put(m, "timestamp", "decimal", "decimal(10,2)");

    assertThat(
            OutboxColumns.typeProblems(
                m, SqlDialect.MARIADB, DEBEZIUM, "relay_seq", RelayMode.CDC, "app.outbox"))
        .containsExactly(
            "column app.outbox.headers is int(11), which is not text or JSON: make it JSON NULL"
                + " (or LONGTEXT) as in config/mysql/outbox-schema.sql",
            "column app.outbox.tracingspancontext is blob, which is not text: make it VARCHAR(512)"
                + " NULL as in config/mysql/outbox-schema.sql",
            "column app.outbox.timestamp is decimal(10,2), which cannot be published as the header"
                + " eventTimestamp: place a text, integer or DATETIME or TIMESTAMP column"
                + " (source.column.additional.placement)");
  }

  @Test
  void acceptsTextAndJsonHeadersColumnsAndTimePlacementsOnBothDatabases() {
    Map<String, Column> m = debeziumTable();
    put(m, "headers", "longtext", "longtext");
    put(m, "timestamp", "datetime", "datetime(3)");
    assertThat(
            OutboxColumns.typeProblems(
                m, SqlDialect.MARIADB, DEBEZIUM, "relay_seq", RelayMode.CDC, "t"))
        .isEmpty();
    Map<String, Column> pg = new LinkedHashMap<>();
    put(pg, "id", "uuid", "uuid");
    put(pg, "aggregatetype", "character varying", "character varying(255)");
    put(pg, "aggregateid", "character varying", "character varying(255)");
    put(pg, "type", "character varying", "character varying(255)");
    put(pg, "timestamp", "timestamp without time zone", "timestamp without time zone");
    put(pg, "payload", "jsonb", "jsonb");
    put(pg, "headers", "jsonb", "jsonb");
    put(pg, "relay_seq", "bigint", "bigint");
    assertThat(
            OutboxColumns.typeProblems(
                pg, SqlDialect.POSTGRESQL, DEBEZIUM, "relay_seq", RelayMode.POLLING, "t"))
        .isEmpty();
  }
}
