package io.outboxrelay.relay.source.polling;

import io.outboxrelay.relay.StartupCheckException;
import io.outboxrelay.relay.config.SourceConfig;
import io.outboxrelay.relay.failure.ErrorClassifier;
import io.outboxrelay.relay.metrics.RelayHealth;
import io.outboxrelay.relay.metrics.SourceGauges;
import io.outboxrelay.relay.source.SourceConnections;
import io.outboxrelay.relay.source.SqlDialect;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Map;
import java.util.TreeMap;

/**
 * The polling relay's backlog figures, read by a few cheap queries on its own connection: the age
 * of the oldest PENDING or PROCESSING row by the database clock (the lowest id of each status, an
 * index lookup, then that row by primary key), the number of such rows and the DEAD rows by event
 * type (both index range scans counted up to {@link #COUNT_CAP} rows). Rows are named by the
 * sequence column and the event type read from its mapped column. Meant to run every few seconds,
 * never per scrape. A failure reports the database unreachable until a refresh succeeds. Not
 * thread-safe: one thread refreshes.
 */
public final class PollingStats implements AutoCloseable {

  /** Counting stops here, so that a huge backlog does not make the refresh expensive. */
  public static final int COUNT_CAP = 100_000;

  private static final String REPORTER = "polling-stats";

  /** How long one query of a refresh may wait for the server. */
  private static final int NETWORK_TIMEOUT_MILLIS = 10_000;

  private final SourceConfig source;
  private final SourceGauges gauges;
  private final RelayHealth health;
  private final String minId;
  private final String age;
  private final String backlog;
  private final String dead;
  private Connection connection;

  /**
   * Creates the refresher of the polling gauges; it connects at its first refresh.
   *
   * @param source the source database
   * @param gauges where the figures go
   * @param health where reachability goes
   */
  public PollingStats(SourceConfig source, SourceGauges gauges, RelayHealth health) {
    this.source = source;
    this.gauges = gauges;
    this.health = health;
    String t = source.table();
    String id = source.sequenceColumn();
    // The status as a literal, as in the claim queries: the lookup is one end of the (status, id)
    // index, whatever the connection's character set.
    this.minId = "SELECT MIN(" + id + ") FROM " + t + " WHERE status = '%s'";
    this.age =
        "SELECT "
            + SqlDialect.of(source.flavor()).secondsSince("created_at")
            + " FROM "
            + t
            + " WHERE "
            + id
            + " = ?";
    this.backlog =
        "SELECT COUNT(*) FROM (SELECT 1 FROM "
            + t
            + " WHERE status IN ('PENDING', 'PROCESSING') LIMIT "
            + COUNT_CAP
            + ") b";
    this.dead =
        "SELECT t, COUNT(*) FROM (SELECT "
            + source.columns().eventType()
            + " AS t FROM "
            + t
            + " WHERE status = 'DEAD' LIMIT "
            + COUNT_CAP
            + ") d GROUP BY t";
  }

  /** Runs the queries and updates the gauges; a failure reports the database unreachable. */
  public void refresh() {
    try {
      if (connection == null) {
        connection = SourceConnections.open(source);
        connection.setAutoCommit(true);
        // A frozen server fails the refresh (and reports the database unreachable) instead of
        // holding the refresh thread forever.
        connection.setNetworkTimeout(Runnable::run, NETWORK_TIMEOUT_MILLIS);
      }
      Long oldest = lowest(minId("PENDING"), minId("PROCESSING"));
      gauges.oldestUnpublishedAge(oldest == null ? 0 : ageOf(oldest));
      gauges.backlog(count(backlog));
      gauges.dead(deadByType());
      health.up(RelayHealth.Dependency.DATABASE, REPORTER);
    } catch (SQLException e) {
      health.down(RelayHealth.Dependency.DATABASE, REPORTER, ErrorClassifier.describe(e));
      close();
    } catch (StartupCheckException e) {
      health.down(RelayHealth.Dependency.DATABASE, REPORTER, String.join("; ", e.problems()));
    }
  }

  private static Long lowest(Long a, Long b) {
    if (a == null) {
      return b;
    }
    return b == null ? a : Math.min(a, b);
  }

  private Long minId(String status) throws SQLException {
    try (PreparedStatement ps = connection.prepareStatement(String.format(minId, status));
        ResultSet rs = ps.executeQuery()) {
      rs.next();
      long id = rs.getLong(1);
      return rs.wasNull() ? null : id;
    }
  }

  private double ageOf(long id) throws SQLException {
    try (PreparedStatement ps = connection.prepareStatement(age)) {
      ps.setLong(1, id);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? rs.getDouble(1) : 0; // published meanwhile
      }
    }
  }

  private long count(String sql) throws SQLException {
    try (PreparedStatement ps = connection.prepareStatement(sql);
        ResultSet rs = ps.executeQuery()) {
      rs.next();
      return rs.getLong(1);
    }
  }

  private Map<String, Long> deadByType() throws SQLException {
    Map<String, Long> byType = new TreeMap<>();
    try (PreparedStatement ps = connection.prepareStatement(dead);
        ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        byType.put(rs.getString(1), rs.getLong(2));
      }
    }
    return byType;
  }

  /** Closes the connection; the next refresh opens a new one. */
  @Override
  public void close() {
    SourceConnections.closeQuietly(connection);
    connection = null;
  }
}
