package io.outboxrelay.relay.source;

import io.outboxrelay.relay.config.SourceConfig;
import io.outboxrelay.relay.config.SourceFlavor;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Locale;
import java.util.UUID;

/**
 * PostgreSQL 12+: values bound as the database's own types (a {@code uuid}, a {@code bigint[]}, an
 * interval in seconds), the database clock from {@code clock_timestamp()}, the catalog in {@code
 * pg_catalog}, tables found through the search path. No binlog: CDC reads a replication slot.
 * Immutable and thread-safe.
 */
final class PostgresDialect implements SqlDialect {

  private static final DateTimeFormatter LOCAL =
      DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss.SSSSSS", Locale.ROOT);

  PostgresDialect() {}

  @Override
  public SourceFlavor flavor() {
    return SourceFlavor.POSTGRESQL;
  }

  @Override
  public String now() {
    return "clock_timestamp()";
  }

  @Override
  public String nowPlus() {
    return "(clock_timestamp() + make_interval(secs => ?))";
  }

  @Override
  public String nowMinus() {
    return "(clock_timestamp() - make_interval(secs => ?))";
  }

  @Override
  public String microsUntil(String column) {
    return "CAST(EXTRACT(EPOCH FROM (" + column + " - clock_timestamp())) * 1000000 AS bigint)";
  }

  @Override
  public String relayTimeColumn() {
    return "timestamptz NOT NULL DEFAULT clock_timestamp()";
  }

  /** pgjdbc's {@code socketTimeout} is in whole seconds. */
  @Override
  public String socketTimeoutUrlParameter(Duration timeout) {
    return "&socketTimeout=" + Math.max(1, timeout.toSeconds());
  }

  @Override
  public String noClaimToken() {
    return "NULL";
  }

  @Override
  public String statusIdIndexHint() {
    return ""; // the planner picks (status, id) by itself
  }

  @Override
  public String aggregateIndexHint() {
    return "";
  }

  @Override
  public boolean claimsFromOrderedWindow() {
    return true;
  }

  /**
   * One read of {@code pg_locks}, grouped by holder: the holders of a granted {@code ROW EXCLUSIVE}
   * lock on the table or on any table that inherits from it (a partition written directly is locked
   * alone), in this database only (relation ids are per database), each with its transaction ids. A
   * prepared transaction keeps its locks under a holder of its own, with no pid. The reference is
   * the snapshot's {@code xmax}, which a transaction that took its id since may pass: the caller
   * reads the 32-bit ids as signed distances from it.
   */
  @Override
  public String outboxWritersQuery() {
    return "WITH RECURSIVE t(oid) AS (SELECT CAST(CAST(? AS regclass) AS oid) UNION SELECT"
        + " i.inhrelid FROM pg_inherits i JOIN t ON i.inhparent = t.oid)"
        + " SELECT txid_snapshot_xmax(txid_current_snapshot()), l.virtualtransaction,"
        + " array_agg(l.transactionid::text) FILTER (WHERE l.locktype = 'transactionid' AND"
        + " l.mode = 'ExclusiveLock') FROM pg_locks l WHERE l.granted AND l.pid IS DISTINCT FROM"
        + " pg_backend_pid() GROUP BY l.virtualtransaction HAVING bool_or(l.locktype ="
        + " 'relation' AND l.mode = 'RowExclusiveLock' AND l.database = (SELECT oid FROM"
        + " pg_database WHERE datname = current_database()) AND l.relation IN (SELECT oid FROM"
        + " t))";
  }

  /** {@code txid_status} is NULL for a transaction too old to know; it ended long ago. */
  @Override
  public String writersRunningQuery() {
    return "SELECT count(*) FROM unnest(CAST(? AS bigint[])) x"
        + " WHERE txid_status(x) = 'in progress'";
  }

  @Override
  public List<String> pollingSessionSettings() {
    return List.of("SET enable_bitmapscan = off");
  }

  @Override
  public String forUpdateSkipLocked() {
    return "FOR UPDATE OF e SKIP LOCKED";
  }

  @Override
  public String text(String column) {
    return column + "::text";
  }

  @Override
  public String localTimeText(String column) {
    return "to_char(" + column + ", 'YYYY-MM-DD HH24:MI:SS.US')";
  }

  @Override
  public String zonedTimeText(String column) {
    return "to_char(" + column + " AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS.US')";
  }

  @Override
  public Instant zonedTime(String text) {
    return LocalDateTime.parse(text, LOCAL).toInstant(ZoneOffset.UTC);
  }

  @Override
  public int defaultTimePrecision() {
    return 6;
  }

  @Override
  public String secondsSince(String column) {
    return "EXTRACT(EPOCH FROM (clock_timestamp() - " + column + "))";
  }

  @Override
  public String in(String column, int count) {
    return column + " = ANY(?)";
  }

  @Override
  public int bindIds(Connection c, PreparedStatement ps, int index, List<Long> ids)
      throws SQLException {
    ps.setArray(index, c.createArrayOf("bigint", ids.toArray()));
    return index + 1;
  }

  @Override
  public void bindDuration(PreparedStatement ps, int index, Duration d) throws SQLException {
    ps.setDouble(index, d.toNanos() / 1e9); // seconds
  }

  @Override
  public void bindToken(PreparedStatement ps, int index, String token) throws SQLException {
    ps.setObject(index, UUID.fromString(token));
  }

  @Override
  public void bindEventId(PreparedStatement ps, int index, String eventId) throws SQLException {
    ps.setObject(index, UUID.fromString(eventId));
  }

  @Override
  public String configDirectory() {
    return "config/postgresql";
  }

  @Override
  public String qualifiedTable(SourceConfig source) {
    return source.table();
  }

  @Override
  public void afterFailedStatement(Connection c) throws SQLException {
    if (!c.getAutoCommit()) {
      c.rollback();
    }
  }

  @Override
  public String fromEpochSeconds() {
    return "to_timestamp(?)";
  }

  @Override
  public String relayTable(SourceConfig source, String table) {
    return table;
  }

  @Override
  public String timeParameter() {
    return "CAST(? AS timestamptz)";
  }

  @Override
  public String timeColumn(boolean nullable) {
    return nullable ? "timestamptz NULL" : "timestamptz NOT NULL";
  }

  @Override
  public List<String> lockWaitBounds(int seconds) {
    return List.of("SET lock_timeout = " + seconds * 1000);
  }

  /** Replication connections (a CDC relay's walsender) are sessions of the user too. */
  @Override
  public String otherSessionsQuery() {
    return "SELECT pid, COALESCE(client_addr::text, 'local'), backend_type || COALESCE(' ' ||"
        + " state, ''), CAST(EXTRACT(EPOCH FROM (clock_timestamp() - COALESCE(state_change,"
        + " backend_start))) AS bigint) FROM pg_stat_activity WHERE usename = ? AND pid <>"
        + " pg_backend_pid()";
  }

  @Override
  public String catalog(SourceConfig source) {
    return null;
  }

  /** {@code to_regclass} resolves the name as the relay's own statements do (search_path). */
  @Override
  public String columnsQuery() {
    return "SELECT LOWER(a.attname), a.atttypid::regtype::text,"
        + " format_type(a.atttypid, a.atttypmod) FROM pg_attribute a"
        + " WHERE a.attrelid = to_regclass(?) AND a.attnum > 0 AND NOT a.attisdropped"
        + " ORDER BY a.attnum";
  }

  /** Primary keys are unique indexes too; {@code indnkeyatts} leaves INCLUDE columns out. */
  @Override
  public String singleColumnUniqueIndexesQuery() {
    return "SELECT COUNT(*) FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid"
        + " AND a.attnum = i.indkey[0] WHERE i.indrelid = to_regclass(?) AND i.indisunique"
        + " AND i.indnkeyatts = 1 AND i.indpred IS NULL AND LOWER(a.attname) = ?";
  }

  @Override
  public int bindTable(PreparedStatement ps, int index, SourceConfig source) throws SQLException {
    ps.setString(index, source.table());
    return index + 1;
  }

  @Override
  public ColumnTypes columnTypes() {
    return ColumnTypes.POSTGRESQL;
  }

  @Override
  public boolean wantsFixedWidthBookkeeping() {
    return false; // every update writes a new row version
  }

  @Override
  public boolean supportsSkipLocked(int major, int minor) {
    return major >= 12;
  }

  /** {@code idle_in_transaction_session_timeout}, in milliseconds. */
  @Override
  public String idleTransactionTimeout(long seconds) {
    return "SET idle_in_transaction_session_timeout = " + seconds * 1000;
  }

  /**
   * {@code idle_in_transaction_session_timeout} through the driver's {@code options} (URL-encoded
   * {@code -c name=value}): the CDC position store's transaction locks the relay's offset rows and
   * the leadership row, and a leader frozen in it (SIGSTOP, a long pause) would otherwise hold a
   * new leader's position commits, and with them its publishing, until it woke.
   */
  @Override
  public String idleWriteTransactionUrlParameter(long seconds) {
    return "&options=-c%20idle_in_transaction_session_timeout%3D" + seconds * 1000;
  }

  @Override
  public String connectorType() {
    return "postgres";
  }

  @Override
  public String gtidBinlogPositionQuery() {
    return null;
  }

  @Override
  public boolean isGtidList(String gtids) {
    return false;
  }

  @Override
  public String binlogMonitorGrant() {
    throw new UnsupportedOperationException("PostgreSQL has no binlog");
  }

  @Override
  public String toString() {
    return "postgresql";
  }
}
