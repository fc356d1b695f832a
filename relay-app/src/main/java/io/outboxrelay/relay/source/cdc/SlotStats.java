package io.outboxrelay.relay.source.cdc;

import io.outboxrelay.relay.StartupCheckException;
import io.outboxrelay.relay.config.SourceConfig;
import io.outboxrelay.relay.failure.Disposition;
import io.outboxrelay.relay.failure.ErrorClassifier;
import io.outboxrelay.relay.metrics.RelayHealth;
import io.outboxrelay.relay.metrics.SourceGauges;
import io.outboxrelay.relay.source.SourceConnections;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The replication slot's figures of a CDC relay on PostgreSQL: the WAL bytes it holds past its
 * {@code confirmed_flush_lsn} ({@code pg_current_wal_lsn() - confirmed_flush_lsn}) and its {@code
 * wal_status}, from {@code pg_replication_slots}. A slot PostgreSQL invalidated ({@code
 * wal_status=lost}), or one that is gone after this relay saw it, is logged once at ERROR, naming
 * it and the recovery. Meant to run every few seconds on its own connection, never per scrape. Not
 * thread-safe: one thread refreshes.
 */
public final class SlotStats implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(SlotStats.class);
  private static final String REPORTER = "slot-stats";
  private static final int NETWORK_TIMEOUT_MILLIS = 10_000;

  private final SourceConfig source;
  private final String relayName;
  private final String offsetsTable;
  private final String context;
  private final SourceGauges gauges;
  private final RelayHealth health;
  private Connection connection;
  private String reported; // the last slot problem logged
  private boolean seen; // the slot existed at an earlier refresh

  /**
   * Creates the refresher of the slot gauges.
   *
   * @param source the source database
   * @param relayName the relay's name, which names its slot
   * @param offsetsTable where the relay stores its position, for the recovery message
   * @param context the log prefix
   * @param gauges where the figures go
   * @param health where the database's reachability goes
   */
  public SlotStats(
      SourceConfig source,
      String relayName,
      String offsetsTable,
      String context,
      SourceGauges gauges,
      RelayHealth health) {
    this.source = source;
    this.relayName = relayName;
    this.offsetsTable = offsetsTable;
    this.context = context;
    this.gauges = gauges;
    this.health = health;
  }

  /** Reads the slot and updates the gauges. */
  public void refresh() {
    String slot = PostgresReplication.slotName(relayName);
    try {
      if (connection == null) {
        connection = SourceConnections.open(source);
        connection.setNetworkTimeout(Runnable::run, NETWORK_TIMEOUT_MILLIS);
      }
      try (PreparedStatement ps =
          connection.prepareStatement(
              "SELECT (pg_current_wal_lsn() - confirmed_flush_lsn)::bigint, wal_status FROM"
                  + " pg_replication_slots WHERE slot_name = ?")) {
        ps.setString(1, slot);
        try (ResultSet rs = ps.executeQuery()) {
          if (!rs.next()) {
            // Before the first start makes it there is none yet; once seen, it must stay.
            if (seen) {
              report(slot, "is gone (dropped while the relay ran?)");
            }
            return;
          }
          seen = true;
          long behind = rs.getLong(1);
          if (!rs.wasNull()) {
            gauges.slotBehind(behind);
          }
          String status = rs.getString(2);
          if (status != null) {
            gauges.slotWalStatus(status);
            if ("lost".equals(status)) {
              report(slot, "was invalidated by PostgreSQL (wal_status=lost)");
            }
          }
        }
      }
      SlotReaderLag.seconds(connection, relayName, offsetsTable)
          .ifPresent(gauges::oldestUnpublishedAge);
      health.up(RelayHealth.Dependency.DATABASE, REPORTER);
    } catch (SQLException e) {
      if (ErrorClassifier.classify(e) != Disposition.STOP) {
        health.down(RelayHealth.Dependency.DATABASE, REPORTER, ErrorClassifier.describe(e));
      }
      close();
    } catch (StartupCheckException e) {
      health.down(RelayHealth.Dependency.DATABASE, REPORTER, String.join("; ", e.problems()));
    }
  }

  private void report(String slot, String what) {
    String problem = "replication slot " + slot + " " + what;
    if (problem.equals(reported)) {
      return;
    }
    reported = problem;
    LOG.error(
        "[{}] {}: {}", context, problem, PostgresReplication.recovery(relayName, offsetsTable));
  }

  @Override
  public void close() {
    Connection c = connection;
    connection = null;
    if (c != null) {
      try {
        c.close();
      } catch (SQLException ignored) {
        // a connection already broken
      }
    }
  }
}
