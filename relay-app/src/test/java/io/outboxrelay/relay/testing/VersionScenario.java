package io.outboxrelay.relay.testing;

import static org.assertj.core.api.Assertions.assertThat;

import io.outboxrelay.relay.metrics.RelayMetrics;
import io.outboxrelay.testsupport.outbox.Ledger;
import io.outboxrelay.testsupport.outbox.RawOutboxInserts;
import io.outboxrelay.testsupport.outbox.TestEvent;
import io.outboxrelay.testsupport.stack.ConsumedRecord;
import java.sql.Connection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Events with aggregate versions, as both modes must publish them: in order, one version that goes
 * backwards (a second event with an old version of {@code v-1}), one that skips ahead ({@code v-2}
 * from 1 to 4), and one event without a version. The same for every mode and database.
 */
public final class VersionScenario {

  private final Map<TestEvent, Long> versions = new LinkedHashMap<>();

  /** Writes the events, one transaction each, and registers them with the ledger. */
  public void write(Connection app, Ledger ledger) throws Exception {
    put(TestEvent.of("order", "v-1", 1), 1L);
    put(TestEvent.of("order", "v-1", 2), 2L);
    put(TestEvent.of("order", "v-1", 3), 3L);
    put(TestEvent.of("order", "v-1", 4), 2L); // backwards
    put(TestEvent.of("order", "v-2", 1), 1L);
    put(TestEvent.of("order", "v-2", 2), 4L); // skips 2 and 3
    put(TestEvent.of("order", "v-3", 1), null); // no version
    for (Map.Entry<TestEvent, Long> e : versions.entrySet()) {
      RawOutboxInserts.writeVersioned(app, e.getKey(), e.getValue());
      ledger.expect(e.getKey());
    }
  }

  private void put(TestEvent event, Long version) {
    versions.put(event, version);
  }

  /**
   * Checks that every event arrived once, in order, with its version as the decimal header {@code
   * aggregate_version} (none without a version), and that the relay counted one version going
   * backwards and, when gaps are checked, one gap.
   */
  public void check(
      Ledger ledger, List<ConsumedRecord> records, RelayMetrics metrics, boolean gapsChecked) {
    Ledger.Result result = ledger.check(records);
    assertThat(result.lost()).as(result.summary()).isZero();
    assertThat(result.duplicates()).as(result.summary()).isZero();
    assertThat(result.outOfOrder()).as(result.summary()).isZero();
    assertThat(result.mismatches()).as(result.summary()).isEmpty();
    for (Map.Entry<TestEvent, Long> e : versions.entrySet()) {
      ConsumedRecord r =
          records.stream()
              .filter(c -> e.getKey().eventId().equals(c.header("id")))
              .findFirst()
              .orElseThrow();
      Long version = e.getValue();
      assertThat(r.header("aggregate_version"))
          .as("aggregate_version of %s", e.getKey())
          .isEqualTo(version == null ? null : version.toString());
    }
    // Counted before the records were sent, so they are in by the time the records arrived.
    assertThat(metrics.versionsBackwardsCount()).isEqualTo(1);
    assertThat(metrics.versionGapsCount()).isEqualTo(gapsChecked ? 1 : 0);
  }

  /** Checks that no record carries an {@code aggregate_version} header. */
  public static void checkNoVersionHeaders(List<ConsumedRecord> records) {
    assertThat(records).isNotEmpty().allMatch(r -> r.header("aggregate_version") == null);
  }
}
