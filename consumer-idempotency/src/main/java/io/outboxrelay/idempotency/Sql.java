package io.outboxrelay.idempotency;

import io.outboxrelay.router.Dialect;

/**
 * The statements of one dialect with the configured table names. Immutable.
 *
 * <p>Locking, per statement:
 *
 * <ul>
 *   <li>{@link #insertProcessed}: the new key is locked until commit; a concurrent insert of the
 *       same key waits for that transaction, then sees a duplicate (0 rows) if it committed or
 *       inserts (1 row) if it rolled back.
 *   <li>{@link #insertProcessedWithHash}: the same, with the conflict check's payload hash.
 *   <li>{@link #selectPayloadHash}: the recorded hash of an id the insert found already there. On
 *       MySQL a locking read, so it reads the committed row whatever the isolation level (the
 *       insert already holds a shared lock on it); on PostgreSQL the insert waited for the
 *       transaction that wrote the row, and a statement at READ COMMITTED sees it.
 *   <li>{@link #probePayloadHash}: reads no row; fails if the table has no {@code payload_hash}.
 *   <li>{@link #lockVersionRow}: creates the aggregate's row or locks the existing one. On MySQL
 *       {@code ON DUPLICATE KEY UPDATE} takes an exclusive lock on the duplicate (a plain {@code
 *       INSERT IGNORE} would take a shared one, and two waiters upgrading shared locks deadlock).
 *       On PostgreSQL {@code DO NOTHING} does not lock an existing row: {@link #selectVersion}
 *       does.
 *   <li>{@link #cutoff}: the database clock minus an age in microseconds, as a value to bind
 *       (column 1) and as epoch seconds (column 2).
 * </ul>
 */
record Sql(
    Dialect dialect,
    String insertProcessed,
    String insertProcessedWithHash,
    String selectPayloadHash,
    String probePayloadHash,
    String lockVersionRow,
    String selectVersion,
    String updateVersion,
    String cutoff,
    String purgeBatch) {

  static Sql of(Dialect dialect, String processedTable, String versionsTable) {
    String selectVersion =
        "SELECT last_version FROM "
            + versionsTable
            + " WHERE consumer_group = ? AND aggregate_type = ? AND aggregate_id = ? FOR UPDATE";
    String selectHash =
        "SELECT payload_hash FROM " + processedTable + " WHERE consumer_group = ? AND event_id = ?";
    String probeHash = "SELECT payload_hash FROM " + processedTable + " WHERE 1 = 0";
    return switch (dialect) {
      case MYSQL ->
          new Sql(
              dialect,
              "INSERT IGNORE INTO " + processedTable + " (consumer_group, event_id) VALUES (?, ?)",
              "INSERT IGNORE INTO "
                  + processedTable
                  + " (consumer_group, event_id, payload_hash) VALUES (?, ?, ?)",
              selectHash + " LOCK IN SHARE MODE",
              probeHash,
              "INSERT INTO "
                  + versionsTable
                  + " (consumer_group, aggregate_type, aggregate_id, last_version)"
                  + " VALUES (?, ?, ?, NULL) ON DUPLICATE KEY UPDATE last_version = last_version",
              selectVersion,
              "UPDATE "
                  + versionsTable
                  + " SET last_version = ?, updated_at = CURRENT_TIMESTAMP(6)"
                  + " WHERE consumer_group = ? AND aggregate_type = ? AND aggregate_id = ?",
              "SELECT c, UNIX_TIMESTAMP(c) FROM"
                  + " (SELECT CURRENT_TIMESTAMP(6) - INTERVAL ? MICROSECOND AS c) AS cutoff",
              "DELETE FROM "
                  + processedTable
                  + " WHERE consumer_group = ? AND processed_at < ?"
                  + " ORDER BY processed_at, event_id LIMIT ?");
      case POSTGRESQL ->
          new Sql(
              dialect,
              "INSERT INTO "
                  + processedTable
                  + " (consumer_group, event_id) VALUES (?, ?) ON CONFLICT DO NOTHING",
              "INSERT INTO "
                  + processedTable
                  + " (consumer_group, event_id, payload_hash) VALUES (?, ?, ?)"
                  + " ON CONFLICT DO NOTHING",
              selectHash,
              probeHash,
              "INSERT INTO "
                  + versionsTable
                  + " (consumer_group, aggregate_type, aggregate_id, last_version)"
                  + " VALUES (?, ?, ?, NULL) ON CONFLICT DO NOTHING",
              selectVersion,
              "UPDATE "
                  + versionsTable
                  + " SET last_version = ?, updated_at = now()"
                  + " WHERE consumer_group = ? AND aggregate_type = ? AND aggregate_id = ?",
              "SELECT c, extract(epoch FROM c) FROM"
                  + " (SELECT now() - make_interval(secs => ?::double precision / 1000000) AS c)"
                  + " AS cutoff",
              "DELETE FROM "
                  + processedTable
                  + " WHERE consumer_group = ? AND event_id IN (SELECT event_id FROM "
                  + processedTable
                  + " WHERE consumer_group = ? AND processed_at < ?"
                  + " ORDER BY processed_at, event_id LIMIT ?)");
    };
  }
}
