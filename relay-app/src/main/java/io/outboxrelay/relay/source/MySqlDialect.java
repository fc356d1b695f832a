package io.outboxrelay.relay.source;

import io.outboxrelay.relay.config.SourceConfig;
import io.outboxrelay.relay.config.SourceFlavor;
import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.Collections;
import java.util.List;

/**
 * MySQL 8.0+, and through {@link MariaDbDialect} MariaDB 10.6+: values bound as text, numbers and
 * microseconds; index hints in the claims; the catalog in {@code information_schema}. Immutable and
 * thread-safe.
 */
sealed class MySqlDialect implements SqlDialect permits MariaDbDialect {

  MySqlDialect() {}

  @Override
  public SourceFlavor flavor() {
    return SourceFlavor.MYSQL;
  }

  @Override
  public String now() {
    return "NOW(6)";
  }

  @Override
  public String nowPlus() {
    return "(NOW(6) + INTERVAL ? MICROSECOND)";
  }

  @Override
  public String nowMinus() {
    return "(NOW(6) - INTERVAL ? MICROSECOND)";
  }

  @Override
  public String microsUntil(String column) {
    return "TIMESTAMPDIFF(MICROSECOND, NOW(6), " + column + ")";
  }

  @Override
  public String relayTimeColumn() {
    return "TIMESTAMP(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6)";
  }

  @Override
  public String socketTimeoutUrlParameter(Duration timeout) {
    return "&socketTimeout=" + timeout.toMillis();
  }

  @Override
  public String noClaimToken() {
    return "''";
  }

  @Override
  public String statusIdIndexHint() {
    return " FORCE INDEX (ix_outbox_events_status_id)";
  }

  @Override
  public String aggregateIndexHint() {
    return " FORCE INDEX (ix_outbox_events_aggregate)";
  }

  @Override
  public String forUpdateSkipLocked() {
    return "FOR UPDATE SKIP LOCKED";
  }

  @Override
  public String text(String column) {
    return column;
  }

  @Override
  public String localTimeText(String column) {
    return "DATE_FORMAT(" + column + ", '%Y-%m-%d %H:%i:%s.%f')";
  }

  @Override
  public String zonedTimeText(String column) {
    return "UNIX_TIMESTAMP(" + column + ")";
  }

  @Override
  public Instant zonedTime(String text) {
    BigDecimal seconds = new BigDecimal(text);
    long whole = seconds.longValue();
    return Instant.ofEpochSecond(
        whole, seconds.subtract(BigDecimal.valueOf(whole)).movePointRight(9).longValue());
  }

  @Override
  public int defaultTimePrecision() {
    return 0;
  }

  @Override
  public String secondsSince(String column) {
    return "TIMESTAMPDIFF(MICROSECOND, " + column + ", NOW(6)) / 1000000";
  }

  @Override
  public String in(String column, int count) {
    return column + " IN (" + String.join(", ", Collections.nCopies(count, "?")) + ")";
  }

  @Override
  public int bindIds(Connection c, PreparedStatement ps, int index, List<Long> ids)
      throws SQLException {
    for (Long id : ids) {
      ps.setLong(index++, id);
    }
    return index;
  }

  @Override
  public void bindDuration(PreparedStatement ps, int index, Duration d) throws SQLException {
    ps.setLong(index, d.toNanos() / 1000); // microseconds
  }

  @Override
  public void bindToken(PreparedStatement ps, int index, String token) throws SQLException {
    ps.setString(index, token);
  }

  @Override
  public void bindEventId(PreparedStatement ps, int index, String eventId) throws SQLException {
    ps.setString(index, eventId);
  }

  @Override
  public String configDirectory() {
    return "config/mysql";
  }

  @Override
  public String qualifiedTable(SourceConfig source) {
    return source.database() + "." + source.table();
  }

  @Override
  public String fromEpochSeconds() {
    return "FROM_UNIXTIME(?)";
  }

  @Override
  public String relayTable(SourceConfig source, String table) {
    return source.database() + "." + table;
  }

  @Override
  public String timeParameter() {
    return "?";
  }

  @Override
  public String timeColumn(boolean nullable) {
    return nullable ? "TIMESTAMP(6) NULL" : "TIMESTAMP(6) NOT NULL";
  }

  @Override
  public List<String> lockWaitBounds(int seconds) {
    return List.of(
        "SET SESSION lock_wait_timeout = " + seconds,
        "SET SESSION innodb_lock_wait_timeout = " + seconds);
  }

  @Override
  public String otherSessionsQuery() {
    return "SELECT ID, HOST, COMMAND, TIME FROM information_schema.PROCESSLIST WHERE USER = ? AND"
        + " ID <> CONNECTION_ID()";
  }

  @Override
  public String catalog(SourceConfig source) {
    return source.database();
  }

  @Override
  public String columnsQuery() {
    return "SELECT LOWER(COLUMN_NAME), LOWER(DATA_TYPE), LOWER(COLUMN_TYPE)"
        + " FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ?"
        + " ORDER BY ORDINAL_POSITION";
  }

  @Override
  public String singleColumnUniqueIndexesQuery() {
    return "SELECT COUNT(*) FROM (SELECT INDEX_NAME FROM information_schema.STATISTICS"
        + " WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? AND NON_UNIQUE = 0"
        + " GROUP BY INDEX_NAME HAVING COUNT(*) = 1"
        + " AND MAX(LOWER(COLUMN_NAME)) = ? AND MAX(SUB_PART) IS NULL) u";
  }

  @Override
  public int bindTable(PreparedStatement ps, int index, SourceConfig source) throws SQLException {
    ps.setString(index, source.database());
    ps.setString(index + 1, source.table());
    return index + 2;
  }

  @Override
  public ColumnTypes columnTypes() {
    return ColumnTypes.MYSQL;
  }

  @Override
  public boolean wantsFixedWidthBookkeeping() {
    return true;
  }

  @Override
  public boolean supportsSkipLocked(int major, int minor) {
    return major >= 8;
  }

  @Override
  public String idleTransactionTimeout(long seconds) {
    return null; // MySQL has no such setting: a frozen process holds its rows until it wakes
  }

  @Override
  public String idleWriteTransactionUrlParameter(long seconds) {
    return "";
  }

  @Override
  public String connectorType() {
    return "mysql";
  }

  @Override
  public String gtidBinlogPositionQuery() {
    return null; // SHOW MASTER STATUS has Executed_Gtid_Set
  }

  @Override
  public boolean isGtidList(String gtids) {
    return true;
  }

  @Override
  public String binlogMonitorGrant() {
    return "REPLICATION CLIENT";
  }

  @Override
  public String toString() {
    return flavor().name().toLowerCase(java.util.Locale.ROOT);
  }
}
