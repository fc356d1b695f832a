package io.outboxrelay.relay.source;

import static org.assertj.core.api.Assertions.assertThat;

import io.outboxrelay.relay.source.OutboxColumns.Column;
import io.outboxrelay.router.HeaderPlacement;
import org.junit.jupiter.api.Test;

/**
 * A placed column's text in polling mode is what Debezium gives CDC mode for the same value (and a
 * worker's header converter writes): its ZonedTimestamp, Timestamp and MicroTimestamp forms.
 */
class PlacedColumnTest {

  private static PlacedColumn placed(String type, String declared, SqlDialect flavor) {
    return PlacedColumn.of(new HeaderPlacement("c", "h"), new Column("c", type, declared), flavor);
  }

  @Test
  void writesATimestampAsIsoUtcWithExactlyItsFractionalDigits() {
    // MariaDB's UNIX_TIMESTAMP of a TIMESTAMP(6), TIMESTAMP(3) and TIMESTAMP.
    assertThat(
            placed("timestamp", "timestamp(6)", SqlDialect.MARIADB)
                .text("1773223530.120000", SqlDialect.MARIADB))
        .isEqualTo("2026-03-11T10:05:30.120000Z");
    assertThat(
            placed("timestamp", "timestamp(3)", SqlDialect.MARIADB)
                .text("1773223530.007", SqlDialect.MARIADB))
        .isEqualTo("2026-03-11T10:05:30.007Z");
    assertThat(
            placed("timestamp", "timestamp", SqlDialect.MARIADB)
                .text("1773223500", SqlDialect.MARIADB))
        .isEqualTo("2026-03-11T10:05:00Z");
    // PostgreSQL's timestamptz, read at UTC; six digits when it declares no precision.
    assertThat(
            placed("timestamp with time zone", "timestamp with time zone", SqlDialect.POSTGRESQL)
                .text("2026-03-11 10:05:30.000001", SqlDialect.POSTGRESQL))
        .isEqualTo("2026-03-11T10:05:30.000001Z");
  }

  @Test
  void writesADatetimeAsMillisecondsOrMicrosecondsSinceTheEpochAtUtc() {
    assertThat(
            placed("datetime", "datetime(6)", SqlDialect.MARIADB)
                .text("2026-03-11 10:05:30.123456", SqlDialect.MARIADB))
        .isEqualTo("1773223530123456");
    assertThat(
            placed("datetime", "datetime(3)", SqlDialect.MARIADB)
                .text("2026-03-11 10:05:30.123000", SqlDialect.MARIADB))
        .isEqualTo("1773223530123");
    assertThat(
            placed("datetime", "datetime", SqlDialect.MARIADB)
                .text("1969-12-31 23:59:59.000000", SqlDialect.MARIADB))
        .isEqualTo("-1000");
    assertThat(
            placed(
                    "timestamp without time zone",
                    "timestamp without time zone",
                    SqlDialect.POSTGRESQL)
                .text("2026-03-11 10:05:30.123456", SqlDialect.POSTGRESQL))
        .isEqualTo("1773223530123456");
  }

  @Test
  void writesTextAndIntegersAsTheDriverGivesThemAndNullAsNoHeader() {
    PlacedColumn text = placed("varchar", "varchar(255)", SqlDialect.MARIADB);
    assertThat(text.text("OrderPaid", SqlDialect.MARIADB)).isEqualTo("OrderPaid");
    assertThat(placed("bigint", "bigint(20)", SqlDialect.MARIADB).text("-42", SqlDialect.MARIADB))
        .isEqualTo("-42");
    assertThat(text.text(null, SqlDialect.MARIADB)).isNull();
    assertThat(
            placed("timestamp", "timestamp(6)", SqlDialect.MARIADB).text(null, SqlDialect.MARIADB))
        .isNull();
  }

  @Test
  void selectsTimesSoThatTheSessionsTimeZoneDoesNotMatter() {
    assertThat(
            placed("timestamp", "timestamp(6)", SqlDialect.MARIADB).select("e", SqlDialect.MARIADB))
        .isEqualTo("UNIX_TIMESTAMP(e.c)");
    assertThat(
            placed("timestamp with time zone", "timestamp(3) with time zone", SqlDialect.POSTGRESQL)
                .select("e", SqlDialect.POSTGRESQL))
        .isEqualTo("to_char(e.c AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS.US')");
    assertThat(
            placed("integer", "integer", SqlDialect.POSTGRESQL).select("e", SqlDialect.POSTGRESQL))
        .isEqualTo("e.c::text");
  }
}
