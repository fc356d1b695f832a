package io.outboxrelay.idempotency;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HexFormat;

/**
 * The optional conflict check: an event id that arrives again with another payload hash than the
 * one recorded with it is a second event under a reused id, not a redelivery. Stateless.
 */
final class ConflictCheck {

  /** The migration that adds the column, per dialect directory, relative to the project root. */
  static final String MIGRATION = "migrations/processed-events-001-add-payload-hash.sql";

  /** Unknown column: MariaDB/MySQL (error 1054) and PostgreSQL (undefined_column). */
  private static final String MYSQL_UNKNOWN_COLUMN = "42S22";

  private static final String POSTGRESQL_UNDEFINED_COLUMN = "42703";

  private ConflictCheck() {}

  /**
   * Checks that the processed-events table has the {@code payload_hash} column. Runs one query that
   * reads no row; when auto-commit is off, rolls back after it, so the caller's transaction starts
   * clean.
   *
   * @throws SchemaMigrationRequiredException if the column is missing
   * @throws SQLException if the database fails otherwise
   */
  static void requireColumn(Connection connection, Sql sql, String table) throws SQLException {
    try (Statement probe = connection.createStatement()) {
      probe.executeQuery(sql.probePayloadHash()).close();
    } catch (SQLException e) {
      if (!isUnknownColumn(e)) {
        throw e;
      }
      throw new SchemaMigrationRequiredException(
          "table "
              + table
              + " has no payload_hash column, which the conflict check needs: run config/"
              + sql.dialect().schemaFolder()
              + "/"
              + MIGRATION
              + " (see docs/upgrading.md), or build the processor without conflictCheck()",
          e);
    } finally {
      if (!connection.getAutoCommit()) {
        connection.rollback();
      }
    }
  }

  /**
   * The hash recorded with an event id that the insert found already there.
   *
   * @return the hash as lowercase hex, or {@code null} if the row has none (recorded with the check
   *     off or before the column existed) or is gone (purged meanwhile)
   */
  static String recordedHash(Connection connection, Sql sql, String consumerGroup, String eventId)
      throws SQLException {
    try (PreparedStatement select = connection.prepareStatement(sql.selectPayloadHash())) {
      select.setString(1, consumerGroup);
      select.setString(2, eventId);
      try (ResultSet row = select.executeQuery()) {
        if (!row.next()) {
          return null;
        }
        byte[] hash = row.getBytes(1);
        return hash == null ? null : HexFormat.of().formatHex(hash);
      }
    }
  }

  /** The hash to store: 32 bytes, or {@code null}. */
  static byte[] toBytes(String hexHash) {
    return hexHash == null ? null : HexFormat.of().parseHex(hexHash);
  }

  private static boolean isUnknownColumn(SQLException e) {
    for (SQLException cursor = e; cursor != null; cursor = cursor.getNextException()) {
      String state = cursor.getSQLState();
      if (MYSQL_UNKNOWN_COLUMN.equals(state) || POSTGRESQL_UNDEFINED_COLUMN.equals(state)) {
        return true;
      }
    }
    return false;
  }
}
