package io.outboxrelay.idempotency;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * The per-aggregate version check, run inside the processor's transaction after the event id was
 * recorded. Stateless.
 */
final class VersionCheck {

  private VersionCheck() {}

  /**
   * Locks the aggregate's row (creating it if needed), compares, and stores the new version.
   *
   * @return {@code true} to apply the event, {@code false} if it is stale
   * @throws VersionGapException if the version skips ahead and the policy is {@link
   *     GapPolicy#REJECT}
   */
  static boolean admit(
      Connection connection,
      Sql sql,
      String consumerGroup,
      String eventId,
      AggregateVersion version,
      GapPolicy gapPolicy)
      throws SQLException {
    try (PreparedStatement lock = connection.prepareStatement(sql.lockVersionRow())) {
      bindAggregate(lock, 1, consumerGroup, version);
      lock.executeUpdate();
    }
    Long last = lockedLastVersion(connection, sql, consumerGroup, version);
    if (last != null) {
      if (version.version() <= last) {
        return false;
      }
      if (version.version() - last > 1 && gapPolicy == GapPolicy.REJECT) {
        throw new VersionGapException(eventId, version, last);
      }
    }
    try (PreparedStatement update = connection.prepareStatement(sql.updateVersion())) {
      update.setLong(1, version.version());
      bindAggregate(update, 2, consumerGroup, version);
      if (update.executeUpdate() != 1) {
        throw new IllegalStateException("the version row of " + describe(version) + " vanished");
      }
    }
    return true;
  }

  private static Long lockedLastVersion(
      Connection connection, Sql sql, String consumerGroup, AggregateVersion version)
      throws SQLException {
    try (PreparedStatement select = connection.prepareStatement(sql.selectVersion())) {
      bindAggregate(select, 1, consumerGroup, version);
      try (ResultSet row = select.executeQuery()) {
        if (!row.next()) {
          throw new IllegalStateException(
              "the version row of " + describe(version) + " is missing right after its upsert");
        }
        long last = row.getLong(1);
        return row.wasNull() ? null : last;
      }
    }
  }

  private static void bindAggregate(
      PreparedStatement statement, int first, String consumerGroup, AggregateVersion version)
      throws SQLException {
    statement.setString(first, consumerGroup);
    statement.setString(first + 1, version.aggregateType());
    statement.setString(first + 2, version.aggregateId());
  }

  private static String describe(AggregateVersion version) {
    return version.aggregateType() + " " + version.aggregateId();
  }
}
