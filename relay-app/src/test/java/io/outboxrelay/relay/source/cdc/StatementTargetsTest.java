package io.outboxrelay.relay.source.cdc;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class StatementTargetsTest {

  private static String changing(String sql) {
    return StatementTargets.changing(sql, "app", "app", "outbox_events").orElse("-");
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      quoteCharacter = '~',
      value = {
        "INSERT INTO outbox_events (event_id, payload) VALUES ('1', '{}') | INSERT",
        "insert into `app`.`OUTBOX_EVENTS` values (1) | INSERT",
        "INSERT IGNORE INTO outbox_events VALUES (1) | INSERT",
        "INSERT LOW_PRIORITY outbox_events VALUES (1) | INSERT",
        "INSERT INTO app.outbox_events SELECT * FROM staging | INSERT",
        "INSERT INTO \"outbox_events\" VALUES (1) | INSERT",
        "REPLACE INTO outbox_events VALUES (1) | REPLACE",
        "  /* app: order 42 */ INSERT INTO outbox_events VALUES (1) | INSERT",
        "-- note\\nINSERT INTO outbox_events VALUES (1) | INSERT",
        " # note\\nINSERT INTO outbox_events VALUES (1) | INSERT",
        "/*!40000 INSERT INTO outbox_events VALUES (1) */ | INSERT",
        "SET STATEMENT max_statement_time=60 FOR INSERT INTO outbox_events VALUES (1) | INSERT",
        "UPDATE outbox_events SET status = 'PUBLISHED' WHERE id = 1 | UPDATE",
        "UPDATE LOW_PRIORITY app.outbox_events e SET e.status = 'X' | UPDATE",
        "UPDATE orders o JOIN outbox_events e ON e.aggregate_id = o.id SET o.x = 1 | UPDATE",
        "DELETE FROM outbox_events WHERE id < 10 | DELETE",
        "DELETE e FROM app.outbox_events e JOIN orders o ON o.id = e.aggregate_id | DELETE",
        "DELETE FROM orders USING orders JOIN outbox_events | DELETE",
        "WITH old AS (SELECT id FROM orders) DELETE FROM outbox_events WHERE id IN (1) | DELETE",
      })
  void findsChangesToTheTable(String sql, String kind) {
    assertThat(changing(sql.replace("\\n", "\n"))).isEqualTo(kind);
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "BEGIN",
        "COMMIT",
        "ALTER TABLE outbox_events ADD COLUMN x INT",
        "TRUNCATE TABLE outbox_events",
        "SET @x = 1",
        "SELECT * FROM outbox_events",
        "INSERT INTO orders (note) VALUES ('INSERT INTO outbox_events')",
        "INSERT INTO archive SELECT * FROM outbox_events",
        "INSERT INTO outbox_events_archive VALUES (1)",
        "INSERT INTO other.outbox_events VALUES (1)",
        "UPDATE orders SET note = 'outbox_events' WHERE id = 1",
        "UPDATE orders SET note = (SELECT MAX(id) FROM outbox_events)",
        "DELETE FROM orders WHERE id IN (SELECT aggregate_id FROM outbox_events)",
        "/* INSERT INTO outbox_events */ INSERT INTO orders VALUES (1)",
        "",
      })
  void ignoresStatementsThatDoNotChangeTheTable(String sql) {
    assertThat(changing(sql)).isEqualTo("-");
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      quoteCharacter = '~',
      nullValues = "null",
      value = {
        "other | INSERT INTO outbox_events VALUES (1) | -",
        "null | INSERT INTO outbox_events VALUES (1) | -",
        "other | INSERT INTO app.outbox_events VALUES (1) | INSERT",
        "APP | INSERT INTO Outbox_Events VALUES (1) | INSERT",
      })
  void resolvesUnqualifiedNamesInTheStatementsDefaultDatabase(
      String defaultDatabase, String sql, String kind) {
    assertThat(StatementTargets.changing(sql, defaultDatabase, "app", "outbox_events").orElse("-"))
        .isEqualTo(kind);
  }
}
