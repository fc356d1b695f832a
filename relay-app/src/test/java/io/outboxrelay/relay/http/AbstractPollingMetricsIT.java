package io.outboxrelay.relay.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.outboxrelay.testsupport.outbox.RelaySettings;
import io.outboxrelay.testsupport.outbox.SourceDatabase;

/**
 * The HTTP endpoint of a polling relay: what polling mode shows, the same on every database. A
 * subclass supplies the database.
 */
abstract class AbstractPollingMetricsIT extends AbstractMetricsEndpointIT {

  @Override
  protected RelaySettings settings(SourceDatabase db, String bootstrap, String name) {
    return RelaySettings.polling(db, bootstrap, name);
  }

  @Override
  protected String givenUpOutcome() {
    return "dead";
  }

  @Override
  protected void assertModeGauges(String metrics) {
    assertThat(value(metrics, "outbox_relay_backlog_events", "")).isZero();
    assertThat(value(metrics, "outbox_relay_oldest_unpublished_age_seconds", "")).isZero();
    assertThat(metrics).doesNotContain("outbox_relay_binlog_behind_bytes");
    // Every claim is timed, the ones that found nothing too.
    assertThat(value(metrics, "outbox_relay_claim_seconds_count", "")).isPositive();
    assertThat(value(metrics, "outbox_relay_claim_seconds_sum", "")).isPositive();
  }

  @Override
  protected void assertBacklogWhileKafkaIsDown(String metrics) {
    assertThat(value(metrics, "outbox_relay_backlog_events", "")).isOne();
    assertThat(value(metrics, "outbox_relay_oldest_unpublished_age_seconds", "")).isPositive();
  }
}
