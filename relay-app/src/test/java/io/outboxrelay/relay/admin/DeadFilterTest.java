package io.outboxrelay.relay.admin;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class DeadFilterTest {

  private static final ZoneId BERLIN = ZoneId.of("Europe/Berlin");

  private static DeadFilter filter(String type, String since, String limit) throws AdminException {
    return DeadFilter.parse(type, null, null, since, limit, 50, BERLIN);
  }

  private static String usageError(ThrowingCall call) {
    try {
      call.run();
    } catch (AdminException e) {
      assertThat(e.exitCode()).isEqualTo(2);
      assertThat(e.getMessage()).doesNotContain("\n");
      return e.getMessage();
    }
    throw new AssertionError("expected an error with exit code 2");
  }

  private interface ThrowingCall {
    void run() throws AdminException;
  }

  @Test
  void takesTheDefaultLimitAndNoCriteriaWhenNothingIsGiven() throws Exception {
    DeadFilter f = filter(null, null, null);
    assertThat(f.limit()).isEqualTo(50);
    assertThat(f.hasCriteria()).isFalse();
    assertThat(f.describe()).isEqualTo("all");
  }

  @ParameterizedTest
  @CsvSource({"2h,PT2H", "30m,PT30M", "7d,PT168H", "90s,PT1M30S", "250ms,PT0.25S"})
  void readsSinceAsADurationBackFromTheDatabaseClock(String text, String expected)
      throws Exception {
    Since since = filter(null, text, null).since();
    assertThat(since.ago()).isEqualTo(Duration.parse(expected));
    assertThat(since.at()).isNull();
  }

  @ParameterizedTest
  @CsvSource({
    "2025-01-31T10:00:00Z,2025-01-31T10:00:00Z",
    "2025-01-31T12:00+02:00,2025-01-31T10:00:00Z",
    "2025-01-31 11:00,2025-01-31T10:00:00Z",
    "2025-01-31T11:00:00,2025-01-31T10:00:00Z",
    "2025-01-31,2025-01-30T23:00:00Z"
  })
  void readsSinceAsATimeWithAnOffsetOrInTheLocalZone(String text, String expected)
      throws Exception {
    Since since = filter(null, text, null).since();
    assertThat(since.at()).isEqualTo(Instant.parse(expected));
    assertThat(since.ago()).isNull();
  }

  @Test
  void rejectsASinceThatIsNeitherWithOneLineSayingWhatWorks() {
    assertThat(usageError(() -> filter(null, "yesterday", null)))
        .isEqualTo(
            "--since 'yesterday' is neither a duration (2h, 30m, 7d) nor a time"
                + " (2025-01-31T10:00:00Z, 2025-01-31 10:00 in the local zone, 2025-01-31)");
    assertThat(usageError(() -> filter(null, "2 weeks", null)))
        .startsWith("--since: '2 weeks' is not a duration: write a whole number and a unit");
    assertThat(usageError(() -> filter(null, "0s", null))).contains("is empty");
    assertThat(usageError(() -> filter(null, "2025-13-01", null))).contains("is neither");
  }

  @ParameterizedTest
  @CsvSource({"0", "-1", "100001", "ten", "1.5", "99999999999"})
  void rejectsALimitOutsideOneToOneHundredThousand(String limit) {
    assertThat(usageError(() -> filter(null, null, limit)))
        .isEqualTo("--limit '" + limit + "' is not a whole number from 1 to 100000");
  }

  @Test
  void rejectsEmptyTextFilters() {
    assertThat(usageError(() -> filter("  ", null, null)))
        .isEqualTo("--event-type is empty: give a value or leave the option out");
    assertThat(usageError(() -> filter("x".repeat(256), null, null)))
        .contains("longer than the column");
  }

  @Test
  void describesItsCriteria() throws Exception {
    DeadFilter f = DeadFilter.parse("OrderPaid", "order", "o-1", "2h", "10", 50, BERLIN);
    assertThat(f.hasCriteria()).isTrue();
    assertThat(f.limit()).isEqualTo(10);
    assertThat(f.describe())
        .isEqualTo(
            "event_type=OrderPaid, aggregate_type=order, aggregate_id=o-1, created in the last 2h");
  }

  @Test
  void readsNumbersAsRowIdsAndAnythingElseAsEventIds() throws Exception {
    assertThat(EventRef.parse("42")).isEqualTo(new EventRef(42L, null));
    assertThat(EventRef.parse(" 42 ")).isEqualTo(new EventRef(42L, null));
    String uuid = "3f2c1a9e-0000-4000-8000-000000000001";
    assertThat(EventRef.parse(uuid)).isEqualTo(new EventRef(null, uuid));
    assertThat(EventRef.parse("evt-7").toString()).isEqualTo("event id evt-7");
    assertThat(usageError(() -> EventRef.parse("0"))).startsWith("'0' is not a row id");
    assertThat(usageError(() -> EventRef.parse("-3"))).startsWith("'-3' is not a row id");
    assertThat(usageError(() -> EventRef.parse("99999999999999999999")))
        .contains("is not a row id");
    assertThat(usageError(() -> EventRef.parse(""))).startsWith("an empty event reference");
    assertThat(usageError(() -> EventRef.parse("a b"))).contains("neither a row id");
  }

  @Test
  void selectsByIdsOrByFilterButNotBothAndNotNothing() throws Exception {
    DeadFilter none = filter(null, null, null);
    DeadFilter some = filter("OrderPaid", null, null);
    assertThat(DeadSelection.of(List.of("1", "2", "1"), none, false).refs())
        .containsExactly(new EventRef(1L, null), new EventRef(2L, null));
    assertThat(DeadSelection.of(List.of(), some, false).refs()).isEmpty();
    assertThat(DeadSelection.of(List.of(), none, true).describe()).isEqualTo("DEAD events (all)");
    assertThat(usageError(() -> DeadSelection.of(List.of("1"), some, false)))
        .startsWith("give event ids or a filter");
    assertThat(usageError(() -> DeadSelection.of(List.of("1"), none, true)))
        .startsWith("give event ids or a filter");
    assertThat(usageError(() -> DeadSelection.of(List.of(), none, false)))
        .startsWith("say which DEAD events");
    assertThat(usageError(() -> DeadSelection.of(List.of("x y"), none, false)))
        .contains("neither a row id");
  }
}
