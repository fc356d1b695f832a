package io.outboxrelay.relay.source;

import static org.assertj.core.api.Assertions.assertThat;

import io.outboxrelay.relay.config.RelayMode;
import io.outboxrelay.relay.source.HandoffRecords.Handoff;
import io.outboxrelay.relay.source.ModeOwnership.CdcLease;
import io.outboxrelay.relay.source.ModeOwnership.TableState;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * Which mode may start on a table, and which hand-off may run, from what the database shows: the
 * hand-off record decides when there is one; otherwise each mode's traces on this table.
 */
class ModeOwnershipTest {

  private static final long S = 1_000_000L; // a second in microseconds

  private static Handoff handoff(RelayMode to, boolean finished, long ageSeconds) {
    return new Handoff(
        to, "orders", "alice", "2026-12-03 10:00:00.000000", finished, ageSeconds * S);
  }

  private static TableState state(
      Handoff handoff, CdcLease lease, long leasedNow, Long publishedAgeSeconds) {
    return new TableState(
        "app.outbox_events",
        Optional.ofNullable(handoff),
        Optional.ofNullable(lease),
        leasedNow,
        publishedAgeSeconds == null ? null : publishedAgeSeconds * S,
        null,
        Map.of(),
        false,
        false);
  }

  private static CdcLease lease(boolean live, long renewedAgeSeconds) {
    return new CdcLease("orders@host-a:42", "orders", live, renewedAgeSeconds * S);
  }

  // ------------------------------------------------------------------ a CDC relay starting

  @Test
  void aCdcRelayMayStartOnATableNoPollingRelayEverServed() {
    assertThat(ModeOwnership.cdcStartProblem(state(null, null, 0, null))).isEmpty();
    assertThat(ModeOwnership.cdcStartProblem(state(null, lease(false, 5), 0, null))).isEmpty();
  }

  @Test
  void aCdcRelayRefusesATableHandedToPolling() {
    assertThat(
            ModeOwnership.cdcStartProblem(state(handoff(RelayMode.POLLING, true, 60), null, 0, 3L)))
        .get()
        .asString()
        .contains(
            "app.outbox_events was handed to polling at 2026-12-03 10:00:00.000000 (60 s ago) by alice")
        .contains("'outbox-relay handoff --to cdc'");
  }

  @Test
  void aCdcRelayRefusesATableWhoseHandoffToPollingDidNotFinish() {
    assertThat(
            ModeOwnership.cdcStartProblem(
                state(handoff(RelayMode.POLLING, false, 60), null, 0, null)))
        .get()
        .asString()
        .contains("a hand-off that did not finish")
        .contains("'outbox-relay handoff --to polling' again");
  }

  @Test
  void aCdcRelayMayStartAfterAHandoffToCdcThoughPollingPublishedJustBeforeIt() {
    // The hand-off itself came 10 s after polling's last publish: a correct switch, no warning.
    assertThat(ModeOwnership.cdcStartProblem(state(handoff(RelayMode.CDC, true, 10), null, 0, 20L)))
        .isEmpty();
  }

  @Test
  void aCdcRelayRefusesATableAPollingRelayPublishedFromAfterTheHandoffToCdc() {
    assertThat(
            ModeOwnership.cdcStartProblem(state(handoff(RelayMode.CDC, true, 300), null, 0, 20L)))
        .get()
        .asString()
        .contains("a polling relay publishes from app.outbox_events")
        .contains("its newest event was marked PUBLISHED 20 s ago")
        .contains("after it was handed to cdc");
  }

  @Test
  void aCdcRelayRefusesATableAPollingRelayPublishesFromWithoutAnyHandoff() {
    assertThat(ModeOwnership.cdcStartProblem(state(null, null, 3, null)))
        .get()
        .asString()
        .contains("3 events are leased to a worker");
    assertThat(ModeOwnership.cdcStartProblem(state(null, null, 0, 30L)))
        .get()
        .asString()
        .contains("'outbox-relay handoff --to cdc'");
  }

  private static TableState marked(
      CdcLease lease, Long publishedAgeSeconds, Map<String, Long> marked, boolean retried) {
    return new TableState(
        "app.outbox_events",
        Optional.empty(),
        Optional.ofNullable(lease),
        0,
        publishedAgeSeconds == null ? null : publishedAgeSeconds * S,
        null,
        marked,
        retried,
        false);
  }

  @Test
  void aCdcRelayRefusesATablePollingServedLongAgoThatWasNeverHandedToCdc() {
    // Regression: polling's last publish 134 s (or an hour) ago let CDC start, and the PENDING rows
    // polling left were never published.
    assertThat(
            ModeOwnership.cdcStartProblem(
                marked(null, 134L, Map.of("PUBLISHED", 5L, "DEAD", 1L), false)))
        .get()
        .asString()
        .isEqualTo(
            "polling served app.outbox_events (rows marked by polling: 1 DEAD, 5 PUBLISHED; the"
                + " newest was marked PUBLISHED 134 s ago) and it was never handed to CDC: a CDC"
                + " relay starts at the current binlog position, so the events polling has not"
                + " published yet would never be published; stop the polling relays, then run"
                + " 'outbox-relay handoff --to cdc'");
    assertThat(ModeOwnership.cdcStartProblem(state(null, null, 0, 3600L)))
        .get()
        .asString()
        .contains("'outbox-relay handoff --to cdc'");
    // Leases that ran out, and rows given back for a retry: polling claimed them.
    assertThat(ModeOwnership.cdcStartProblem(marked(null, null, Map.of("PROCESSING", 2L), false)))
        .get()
        .asString()
        .contains("rows marked by polling: 2 PROCESSING");
    assertThat(ModeOwnership.cdcStartProblem(marked(null, null, Map.of(), true)))
        .get()
        .asString()
        .contains("PENDING rows polling claimed and gave back for a retry");
  }

  @Test
  void aCdcRelayMayStartOnPendingRowsNoRelayPolledOrOnATableCdcServedBefore() {
    assertThat(ModeOwnership.cdcStartProblem(marked(null, null, Map.of(), false))).isEmpty();
    // CDC ran after polling's last publish (its leadership row, or a stored position).
    assertThat(
            ModeOwnership.cdcStartProblem(
                marked(lease(false, 600), 3600L, Map.of("PUBLISHED", 5L), false)))
        .isEmpty();
    assertThat(
            ModeOwnership.cdcStartProblem(
                marked(null, 3600L, Map.of("PUBLISHED", 5L), false).withStoredPosition(true)))
        .isEmpty();
  }

  @Test
  void aCdcRelayRefusesATablePollingPublishedFromAfterCdcLastServedIt() {
    assertThat(
            ModeOwnership.cdcStartProblem(
                marked(lease(false, 3600), 600L, Map.of("PUBLISHED", 5L), false)))
        .get()
        .asString()
        .contains("a polling relay publishes from app.outbox_events")
        .contains("'outbox-relay handoff --to cdc'");
  }

  // ------------------------------------------------------------------ a polling relay starting

  @Test
  void aPollingRelayMayStartOnATableNoCdcRelayEverServedOrAfterAHandoffToPolling() {
    assertThat(ModeOwnership.pollingStartProblem(state(null, null, 0, 5L))).isEmpty();
    assertThat(
            ModeOwnership.pollingStartProblem(
                state(handoff(RelayMode.POLLING, true, 60), lease(false, 70), 0, 5L)))
        .isEmpty();
  }

  @Test
  void aPollingRelayRefusesATableHandedToCdc() {
    assertThat(
            ModeOwnership.pollingStartProblem(
                state(handoff(RelayMode.CDC, true, 60), null, 0, null)))
        .get()
        .asString()
        .contains("was handed to cdc at")
        .contains("'outbox-relay handoff --to polling'");
  }

  @Test
  void aPollingRelayRefusesATableACdcRelayStreamsNamingIt() {
    assertThat(ModeOwnership.pollingStartProblem(state(null, lease(true, 1), 0, null)))
        .get()
        .asString()
        .contains("CDC relay orders (orders@host-a:42) holds the lease of app.outbox_events");
  }

  @Test
  void aPollingRelayRefusesATableCdcServedLastWithoutAHandoff() {
    assertThat(ModeOwnership.pollingStartProblem(state(null, lease(false, 30), 0, null)))
        .get()
        .asString()
        .contains("never handed to polling")
        .contains("still PENDING");
    // Polling published after CDC last ran: polling took over before hand-offs were recorded.
    assertThat(ModeOwnership.pollingStartProblem(state(null, lease(false, 300), 0, 30L))).isEmpty();
  }

  @Test
  void aPollingRelayRefusesATableCdcServedAfterTheHandoffToPolling() {
    assertThat(
            ModeOwnership.pollingStartProblem(
                state(handoff(RelayMode.POLLING, true, 300), lease(false, 30), 0, null)))
        .get()
        .asString()
        .contains("after it was handed to polling");
  }

  // ------------------------------------------------------------------ hand-offs

  @Test
  void aHandoffToCdcRunsOnATablePollingServes() {
    assertThat(ModeOwnership.handoffToCdcProblem(state(null, null, 0, 5L), "orders")).isEmpty();
    assertThat(
            ModeOwnership.handoffToCdcProblem(
                state(handoff(RelayMode.POLLING, true, 60), lease(false, 70), 0, 5L), "orders"))
        .isEmpty();
  }

  @Test
  void aHandoffToCdcIsRefusedOnATableCdcServes() {
    assertThat(
            ModeOwnership.handoffToCdcProblem(
                state(handoff(RelayMode.CDC, true, 60), null, 0, 90L), "orders"))
        .get()
        .asString()
        .contains("already")
        .endsWith("nothing was changed");
    // Never handed over, and CDC ran after polling's last publish (or polling never published).
    assertThat(ModeOwnership.handoffToCdcProblem(state(null, lease(false, 10), 0, null), "orders"))
        .get()
        .asString()
        .contains("CDC relay orders has served app.outbox_events")
        .endsWith("nothing was changed");
    assertThat(
            ModeOwnership.handoffToCdcProblem(
                state(handoff(RelayMode.POLLING, true, 300), lease(false, 10), 0, 400L), "orders"))
        .isPresent();
  }

  @Test
  void aHandoffToPollingRunsOnATableCdcServesOrOneWhoseHandoffDidNotFinish() {
    assertThat(ModeOwnership.handoffToPollingProblem(state(null, lease(false, 5), 0, null)))
        .isEmpty();
    assertThat(
            ModeOwnership.handoffToPollingProblem(
                state(handoff(RelayMode.CDC, true, 60), lease(false, 5), 0, 90L)))
        .isEmpty();
    assertThat(
            ModeOwnership.handoffToPollingProblem(
                state(handoff(RelayMode.POLLING, false, 60), lease(false, 90), 0, 50L)))
        .isEmpty();
  }

  @Test
  void aHandoffToPollingIsRefusedOnATablePollingServes() {
    assertThat(
            ModeOwnership.handoffToPollingProblem(
                state(handoff(RelayMode.POLLING, true, 60), lease(false, 90), 0, 5L)))
        .get()
        .asString()
        .contains("already")
        .endsWith("nothing was changed");
    assertThat(ModeOwnership.handoffToPollingProblem(state(null, null, 0, 5L)))
        .get()
        .asString()
        .contains("no CDC relay ever served it");
    assertThat(ModeOwnership.handoffToPollingProblem(state(null, lease(false, 60), 0, 5L)))
        .get()
        .asString()
        .contains("since CDC relay orders last served it");
  }
}
