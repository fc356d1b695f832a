package io.outboxrelay.relay.source.cdc;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.SQLException;
import org.junit.jupiter.api.Test;

/** Which engine failures on PostgreSQL start a new term rather than stopping the relay. */
class LostReplicationConnectionTest {

  @Test
  void aConnectionErrorOrTheServerShuttingDownIsALostConnection() {
    assertThat(
            CdcSource.lostReplicationConnection(
                new RuntimeException(
                    "wrapped", new SQLException("FATAL: terminating connection", "57P01"))))
        .isTrue();
    assertThat(
            CdcSource.lostReplicationConnection(
                new SQLException("Connection to 127.0.0.1:5432 refused", "08001")))
        .isTrue();
    assertThat(
            CdcSource.lostReplicationConnection(
                new IllegalStateException(
                    "x",
                    new RuntimeException("Database connection failed when reading from copy"))))
        .isTrue();
  }

  @Test
  void otherFailuresAreNot() {
    assertThat(
            CdcSource.lostReplicationConnection(
                new SQLException("permission denied for table outbox_events", "42501")))
        .isFalse();
    assertThat(
            CdcSource.lostReplicationConnection(
                new IllegalStateException("replication slot \"x\" does not exist")))
        .isFalse();
  }
}
