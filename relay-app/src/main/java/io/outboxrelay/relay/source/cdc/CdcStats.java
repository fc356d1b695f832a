package io.outboxrelay.relay.source.cdc;

import io.outboxrelay.relay.StartupCheckException;
import io.outboxrelay.relay.config.SourceConfig;
import io.outboxrelay.relay.failure.Disposition;
import io.outboxrelay.relay.failure.ErrorClassifier;
import io.outboxrelay.relay.metrics.RelayHealth;
import io.outboxrelay.relay.metrics.SourceGauges;
import io.outboxrelay.relay.source.SourceConnections;
import io.outboxrelay.relay.source.SqlDialect;
import java.lang.management.ManagementFactory;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import javax.management.AttributeList;
import javax.management.MBeanServer;
import javax.management.ObjectName;

/**
 * The CDC relay's lag figures: how far the binlog reader is behind the server, in seconds
 * (Debezium's {@code MilliSecondsBehindSource} streaming metric) and in bytes (the binlog files'
 * sizes from {@code SHOW BINARY LOGS} past the reader's file and position), and whether the reader
 * is connected. Meant to run every few seconds on its own connection, never per scrape. Not
 * thread-safe: one thread refreshes.
 *
 * <p>A connected reader that moved, or had nothing new to read, counts as progress for {@code
 * /health/live}: an idle relay is not wedged.
 */
public final class CdcStats implements AutoCloseable {

  private static final String REPORTER = "cdc-stats";

  private final MBeanServer server = ManagementFactory.getPlatformMBeanServer();

  /** How long one query of a refresh may wait for the server. */
  private static final int NETWORK_TIMEOUT_MILLIS = 10_000;

  private final SourceConfig source;
  private final String relayName;
  private final String offsetsTable;
  private final String pattern;
  private final SourceGauges gauges;
  private final RelayHealth health;
  private Connection connection;
  private boolean binlogListDenied;
  private String lastFile;
  private long lastPosition;
  private Long lastBehind;

  /**
   * Creates the refresher of the CDC gauges.
   *
   * @param source the source database
   * @param relayName the relay's name (Debezium's logical name)
   * @param offsetsTable where the relays of this name commit their position
   * @param gauges where the figures go
   * @param health where the database's reachability goes
   */
  public CdcStats(
      SourceConfig source,
      String relayName,
      String offsetsTable,
      SourceGauges gauges,
      RelayHealth health) {
    this.source = source;
    this.relayName = relayName;
    this.offsetsTable = offsetsTable;
    this.pattern =
        "debezium."
            + SqlDialect.of(source.flavor()).connectorType()
            + ":type=connector-metrics,context=streaming,server="
            + relayName
            + ",*";
    this.gauges = gauges;
    this.health = health;
  }

  /**
   * Reads the streaming metrics and the binlog list and updates the gauges. A standby, which has no
   * binlog reader, measures from the leader's committed position instead.
   */
  public void refresh() {
    Reader reader = reader();
    if (reader == null) {
      if (health.standby()) {
        refreshFromCommittedPosition();
      }
      return; // otherwise the engine is (re)starting: nothing to say yet
    }
    Long behind = reader.file == null ? null : bytesBehind(reader.file, reader.position);
    if (behind != null) {
      gauges.binlogBehind(behind);
    }
    // Debezium keeps the lag of the last event read; once the reader is at the end it is 0.
    gauges.oldestUnpublishedAge(
        behind != null && behind == 0 ? 0 : Math.max(0, reader.millisBehind) / 1e3);
    if (reader.connected) {
      health.up(RelayHealth.Dependency.DATABASE, REPORTER);
      if (keepsUp(reader, behind)) {
        health.beat();
      }
    } else {
      health.down(RelayHealth.Dependency.DATABASE, REPORTER, "the binlog reader is disconnected");
    }
  }

  /**
   * Whether the reader keeps up: its position moved since the last refresh, or nothing new was
   * written to the binlog meanwhile (an idle relay has nothing to do, which is no sign of a wedged
   * engine). A reader that stays put while the binlog grows does not.
   */
  private boolean keepsUp(Reader reader, Long behind) {
    boolean moved =
        reader.file != null && (!reader.file.equals(lastFile) || reader.position != lastPosition);
    boolean quiet = behind != null && lastBehind != null && behind <= lastBehind;
    lastFile = reader.file;
    lastPosition = reader.position;
    lastBehind = behind;
    return moved || quiet;
  }

  private record Reader(boolean connected, long millisBehind, String file, long position) {}

  private Reader reader() {
    try {
      for (ObjectName name : server.queryNames(new ObjectName(pattern), null)) {
        AttributeList values =
            server.getAttributes(
                name,
                new String[] {
                  "Connected", "MilliSecondsBehindSource", "BinlogFilename", "BinlogPosition"
                });
        boolean connected = false;
        long millisBehind = 0;
        String file = null;
        long position = 0;
        for (javax.management.Attribute a : values.asList()) {
          Object v = a.getValue();
          switch (a.getName()) {
            case "Connected" -> connected = Boolean.TRUE.equals(v);
            case "MilliSecondsBehindSource" ->
                millisBehind = v instanceof Number n ? n.longValue() : 0;
            case "BinlogFilename" -> file = v instanceof String s && !s.isEmpty() ? s : null;
            case "BinlogPosition" -> position = v instanceof Number n ? n.longValue() : 0;
            default -> {}
          }
        }
        return new Reader(connected, millisBehind, file, position);
      }
    } catch (Exception e) {
      // not registered (yet)
    }
    return null;
  }

  /**
   * A standby's figures, from the leader's committed position: the binlog bytes past it, and, when
   * there are any, the age of its last event by the database clock. Both include what the leader
   * has published but not committed yet (at most {@code cdc.commit.interval} of events).
   */
  private void refreshFromCommittedPosition() {
    try {
      if (connection == null) {
        connection = SourceConnections.open(source);
        connection.setNetworkTimeout(Runnable::run, NETWORK_TIMEOUT_MILLIS);
      }
      java.util.Optional<com.fasterxml.jackson.databind.JsonNode> offset;
      long now;
      try (Statement st = connection.createStatement()) {
        offset = ResumePoint.offset(st, offsetsTable, relayName);
        try (ResultSet rs = st.executeQuery("SELECT UNIX_TIMESTAMP(NOW(6))")) {
          rs.next();
          now = (long) (rs.getDouble(1) * 1000);
        }
      }
      if (offset.isEmpty() || !offset.get().path("file").isTextual()) {
        return;
      }
      Long behind =
          bytesBehind(offset.get().path("file").asText(), offset.get().path("pos").asLong());
      if (behind == null) {
        return;
      }
      gauges.binlogBehind(behind);
      long eventMillis = offset.get().path("ts_sec").asLong(0) * 1000;
      gauges.oldestUnpublishedAge(
          behind == 0 || eventMillis == 0 ? 0 : Math.max(0, now - eventMillis) / 1e3);
      health.up(RelayHealth.Dependency.DATABASE, REPORTER + "-sql");
    } catch (SQLException e) {
      if (ErrorClassifier.classify(e) != Disposition.STOP) {
        health.down(
            RelayHealth.Dependency.DATABASE, REPORTER + "-sql", ErrorClassifier.describe(e));
      }
      close();
    } catch (StartupCheckException e) {
      health.down(
          RelayHealth.Dependency.DATABASE, REPORTER + "-sql", String.join("; ", e.problems()));
    }
  }

  /** Bytes from the reader's position to the end of the binlog, or null when unknown. */
  private Long bytesBehind(String file, long position) {
    if (binlogListDenied) {
      return null;
    }
    try {
      if (connection == null) {
        connection = SourceConnections.open(source);
        // A frozen server fails the refresh instead of holding the refresh thread forever.
        connection.setNetworkTimeout(Runnable::run, NETWORK_TIMEOUT_MILLIS);
      }
      long behind = 0;
      boolean found = false;
      try (Statement st = connection.createStatement();
          ResultSet rs = st.executeQuery("SHOW BINARY LOGS")) {
        while (rs.next()) {
          String name = rs.getString(1);
          long size = rs.getLong(2);
          if (found) {
            behind += size;
          } else if (name.equals(file)) {
            found = true;
            behind += Math.max(0, size - position);
          }
        }
      }
      health.up(RelayHealth.Dependency.DATABASE, REPORTER + "-sql");
      return found ? behind : null;
    } catch (SQLException e) {
      if (ErrorClassifier.classify(e) == Disposition.STOP) {
        binlogListDenied = true; // without the privilege the gauge stays absent
      } else {
        health.down(
            RelayHealth.Dependency.DATABASE, REPORTER + "-sql", ErrorClassifier.describe(e));
      }
      close();
      return null;
    } catch (StartupCheckException e) {
      health.down(
          RelayHealth.Dependency.DATABASE, REPORTER + "-sql", String.join("; ", e.problems()));
      return null;
    }
  }

  /** Closes the connection; the next refresh opens a new one. */
  @Override
  public void close() {
    SourceConnections.closeQuietly(connection);
    connection = null;
  }
}
