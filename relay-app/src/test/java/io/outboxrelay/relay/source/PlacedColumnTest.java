package io.outboxrelay.relay.source;

import static org.assertj.core.api.Assertions.assertThat;

import io.outboxrelay.relay.config.SourceFlavor;
import io.outboxrelay.relay.source.OutboxColumns.Column;
import io.outboxrelay.router.HeaderPlacement;
import org.junit.jupiter.api.Test;

/**
 * A placed column's text in polling mode is what Debezium gives CDC mode for the same value (and a
 * worker's header converter writes): its ZonedTimestamp, Timestamp and MicroTimestamp forms.
 */
class PlacedColumnTest {

  private static PlacedColumn placed(String type, String declared, SourceFlavor flavor) {
    return PlacedColumn.of(new HeaderPlacement("c", "h"), new Column("c", type, declared), flavor);
  }

  @Test
  void writesATimestampAsIsoUtcWithExactlyItsFractionalDigits() {
    // MariaDB's UNIX_TIMESTAMP of a TIMESTAMP(6), TIMESTAMP(3) and TIMESTAMP.
    assertThat(
            placed("timestamp", "timestamp(6)", SourceFlavor.MARIADB)
                .text("1773223530.120000", SourceFlavor.MARIADB))
        .isEqualTo("2026-03-11T10:05:30.120000Z");
    assertThat(
            placed("timestamp", "timestamp(3)", SourceFlavor.MARIADB)
                .text("1773223530.007", SourceFlavor.MARIADB))
        .isEqualTo("2026-03-11T10:05:30.007Z");
    assertThat(
            placed("timestamp", "timestamp", SourceFlavor.MARIADB)
                .text("1773223500", SourceFlavor.MARIADB))
        .isEqualTo("2026-03-11T10:05:00Z");
    // PostgreSQL's timestamptz, read at UTC; six digits when it declares no precision.
    assertThat(
            placed("timestamp with time zone", "timestamp with time zone", SourceFlavor.POSTGRESQL)
                .text("2026-03-11 10:05:30.000001", SourceFlavor.POSTGRESQL))
        .isEqualTo("2026-03-11T10:05:30.000001Z");
  }

  @Test
  void writesADatetimeAsMillisecondsOrMicrosecondsSinceTheEpochAtUtc() {
    assertThat(
            placed("datetime", "datetime(6)", SourceFlavor.MARIADB)
                .text("2026-03-11 10:05:30.123456", SourceFlavor.MARIADB))
        .isEqualTo("1773223530123456");
    assertThat(
            placed("datetime", "datetime(3)", SourceFlavor.MARIADB)
                .text("2026-03-11 10:05:30.123000", SourceFlavor.MARIADB))
        .isEqualTo("1773223530123");
    assertThat(
            placed("datetime", "datetime", SourceFlavor.MARIADB)
                .text("1969-12-31 23:59:59.000000", SourceFlavor.MARIADB))
        .isEqualTo("-1000");
    assertThat(
            placed(
                    "timestamp without time zone",
                    "timestamp without time zone",
                    SourceFlavor.POSTGRESQL)
                .text("2026-03-11 10:05:30.123456", SourceFlavor.POSTGRESQL))
        .isEqualTo("1773223530123456");
  }

  @Test
  void writesTextAndIntegersAsTheDriverGivesThemAndNullAsNoHeader() {
    PlacedColumn text = placed("varchar", "varchar(255)", SourceFlavor.MARIADB);
    assertThat(text.text("OrderPaid", SourceFlavor.MARIADB)).isEqualTo("OrderPaid");
    assertThat(
            placed("bigint", "bigint(20)", SourceFlavor.MARIADB).text("-42", SourceFlavor.MARIADB))
        .isEqualTo("-42");
    assertThat(text.text(null, SourceFlavor.MARIADB)).isNull();
    assertThat(
            placed("timestamp", "timestamp(6)", SourceFlavor.MARIADB)
                .text(null, SourceFlavor.MARIADB))
        .isNull();
  }

  @Test
  void selectsTimesSoThatTheSessionsTimeZoneDoesNotMatter() {
    assertThat(
            placed("timestamp", "timestamp(6)", SourceFlavor.MARIADB)
                .select("e", SourceFlavor.MARIADB))
        .isEqualTo("UNIX_TIMESTAMP(e.c)");
    assertThat(
            placed(
                    "timestamp with time zone",
                    "timestamp(3) with time zone",
                    SourceFlavor.POSTGRESQL)
                .select("e", SourceFlavor.POSTGRESQL))
        .isEqualTo("to_char(e.c AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS.US')");
    assertThat(
            placed("integer", "integer", SourceFlavor.POSTGRESQL)
                .select("e", SourceFlavor.POSTGRESQL))
        .isEqualTo("e.c::text");
  }
}
