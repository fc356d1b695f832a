package io.outboxrelay.relay.source;

import io.outboxrelay.relay.config.SourceFlavor;
import java.util.regex.Pattern;

/**
 * MariaDB 10.6+: MySQL's SQL, plus a consistent snapshot that reports its binlog position, MariaDB
 * GTIDs ({@code domain-server-sequence}) and bounds on idle transactions. Immutable and
 * thread-safe.
 */
final class MariaDbDialect extends MySqlDialect {

  private static final Pattern GTIDS = Pattern.compile("\\d+-\\d+-\\d+(,\\s*\\d+-\\d+-\\d+)*");

  MariaDbDialect() {}

  @Override
  public SourceFlavor flavor() {
    return SourceFlavor.MARIADB;
  }

  @Override
  public boolean supportsSkipLocked(int major, int minor) {
    return major > 10 || (major == 10 && minor >= 6);
  }

  /**
   * {@code idle_transaction_timeout}, which also ends a session whose transaction has only locked
   * rows ({@code idle_write_transaction_timeout} would not).
   */
  @Override
  public String idleTransactionTimeout(long seconds) {
    return "SET SESSION idle_transaction_timeout = " + seconds;
  }

  /**
   * {@code idle_write_transaction_timeout}, which leaves a library's read-only transaction alone;
   * MariaDB Connector/J sets it at every connect.
   */
  @Override
  public String idleWriteTransactionUrlParameter(long seconds) {
    return "&sessionVariables=idle_write_transaction_timeout=" + seconds;
  }

  @Override
  public String connectorType() {
    return "mariadb";
  }

  @Override
  public String gtidBinlogPositionQuery() {
    return "SELECT @@GLOBAL.gtid_binlog_pos";
  }

  @Override
  public boolean isGtidList(String gtids) {
    return GTIDS.matcher(gtids).matches();
  }

  @Override
  public String binlogMonitorGrant() {
    return "BINLOG MONITOR";
  }
}
