package io.outboxrelay.relay.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.outboxrelay.testsupport.outbox.OutboxDatabase;
import io.outboxrelay.testsupport.outbox.RelaySettings;
import io.outboxrelay.testsupport.outbox.SourceDatabase;
import io.outboxrelay.testsupport.stack.LocalStack;

/** The HTTP endpoint of a CDC relay on the private MariaDB. */
class MariaDbCdcMetricsIT extends AbstractMetricsEndpointIT {

  @Override
  protected SourceDatabase newDatabase() {
    return OutboxDatabase.on(LocalStack.shared().mariaDb());
  }

  @Override
  protected RelaySettings settings(SourceDatabase db, String bootstrap, String name) {
    return RelaySettings.cdc(db, bootstrap, name).with("cdc.poison.action", "skip");
  }

  @Override
  protected String givenUpOutcome() {
    return "skipped";
  }

  @Override
  protected String expectedRole() {
    return "leader";
  }

  @Override
  protected void assertModeGauges(String metrics) {
    assertThat(value(metrics, "outbox_relay_binlog_behind_bytes", "")).isGreaterThanOrEqualTo(0);
    assertThat(metrics).doesNotContain("outbox_relay_backlog_events");
  }

  @Override
  protected void assertBacklogWhileKafkaIsDown(String metrics) {
    // The reader goes on reading: the waiting event is in the relay, not behind it.
    assertThat(value(metrics, "outbox_relay_binlog_behind_bytes", "")).isGreaterThanOrEqualTo(0);
  }
}
