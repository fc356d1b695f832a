package io.outboxrelay.relay.source.polling;

import io.outboxrelay.relay.config.Ordering;
import io.outboxrelay.relay.source.SqlDialect;

/**
 * Every statement a polling worker runs on one outbox table, in one place to read: the claim
 * (window end, pending heads, expired leases), the lease renewal, and the fenced finish. Built once
 * per store from the {@link SqlDialect}'s fragments; the order of the {@code ?} parameters is given
 * with each. Immutable and thread-safe.
 *
 * @param dialect the database's fragments
 * @param table the outbox table
 * @param released the assignments that end a row's lease: no claim owns it, and its lease ended now
 * @param windowEnd a window's last pending id; parameters: the cursor (exclusive), the window size
 *     minus one
 * @param pendingClaim the due pending heads of a window, locked; parameters: the cursor
 *     (exclusive), the window's last id (inclusive), the limit
 * @param expiredClaim the rows whose lease expired (heads only with aggregate ordering), locked;
 *     parameter: the limit
 */
record OutboxStatements(
    SqlDialect dialect,
    String table,
    String released,
    String windowEnd,
    String pendingClaim,
    String expiredClaim) {

  /**
   * The statements of one table.
   *
   * @param ordering with {@link Ordering#AGGREGATE}, claims take only an aggregate's head
   * @param deadBlocksAggregate whether a DEAD row holds back the later rows of its aggregate
   * @param aggregateVersions whether claims read the optional {@code aggregate_version} column
   */
  static OutboxStatements of(
      SqlDialect dialect,
      String table,
      Ordering ordering,
      boolean deadBlocksAggregate,
      boolean aggregateVersions) {
    String now = dialect.now();
    String columns =
        "e.id, e."
            + dialect.eventIdText()
            + ", e.aggregate_type, e.aggregate_id, e.event_type, e."
            + dialect.payloadText()
            + ", e.created_at, e.attempts, "
            + now
            + (aggregateVersions ? ", e.aggregate_version" : "");
    String claim = "SELECT " + columns + " FROM " + table + " e";
    String locked = " ORDER BY e.id LIMIT ? " + dialect.forUpdateSkipLocked();
    // The head checks read the aggregate's index (aggregate_type, aggregate_id, status, id) one
    // status at a time, so each reads the few rows of that status, never the aggregate's history:
    // "lowest pending id" is one index entry, and PROCESSING and DEAD rows are rare.
    boolean ordered = ordering == Ordering.AGGREGATE;
    String p = table + " p" + dialect.aggregateIndexHint();
    String notAfterDead = deadBlocksAggregate ? notAfter(p, "DEAD") : "";
    String pendingHead =
        ordered
            ? " AND e.id = (SELECT p.id FROM "
                + p
                + " WHERE p.aggregate_type = e.aggregate_type AND p.aggregate_id = e.aggregate_id"
                + " AND p.status = 'PENDING' ORDER BY p.id LIMIT 1)"
                + notAfter(p, "PROCESSING")
                + notAfterDead
            : "";
    String expiredHead =
        ordered ? notAfter(p, "PENDING") + notAfter(p, "PROCESSING") + notAfterDead : "";
    return new OutboxStatements(
        dialect,
        table,
        "claim_token = " + dialect.noClaimToken() + ", processing_until = " + now,
        windowEndQuery(dialect, table, "PENDING", ""),
        claim
            + dialect.statusIdIndexHint()
            + " WHERE e.status = 'PENDING' AND e.id > ? AND e.id <= ?"
            + " AND e.next_attempt_at <= "
            + now
            + pendingHead
            + locked,
        claim
            + " WHERE e.status = 'PROCESSING' AND e.processing_until < "
            + now
            + expiredHead
            + locked);
  }

  /**
   * The last id of a window: the {@code OFFSET ?}-th row with this status after id {@code ?}, in id
   * order, with {@code more} columns after it (their parameters come first).
   */
  static String windowEndQuery(SqlDialect dialect, String table, String status, String more) {
    return "SELECT id"
        + more
        + " FROM "
        + table
        + dialect.statusIdIndexHint()
        + " WHERE status = '"
        + status
        + "' AND id > ? ORDER BY id LIMIT 1 OFFSET ?";
  }

  /** No row of the aggregate with this status comes before {@code e}; {@code p} names the table. */
  private static String notAfter(String p, String status) {
    return " AND NOT EXISTS (SELECT 1 FROM "
        + p
        + " WHERE p.aggregate_type = e.aggregate_type AND p.aggregate_id = e.aggregate_id"
        + " AND p.status = '"
        + status
        + "' AND p.id < e.id)";
  }

  /** Leases claimed rows. Parameters: the token, the lease, the ids. */
  String lease(int ids) {
    return "UPDATE "
        + table
        + " SET status = 'PROCESSING', claim_token = ?, processing_until = "
        + dialect.nowPlus()
        + ", attempts = attempts + 1 WHERE "
        + dialect.idIn(ids);
  }

  /** Buries rows whose lease expired on their last attempt. Parameters: the reason, the ids. */
  String buryExpired(int ids) {
    return "UPDATE "
        + table
        + " SET status = 'DEAD', "
        + released
        + ", last_error = ? WHERE "
        + dialect.idIn(ids);
  }

  /**
   * Extends the lease of the rows a claim still owns. Parameters: the lease, the ids, the token.
   */
  String renew(int ids) {
    return "UPDATE "
        + table
        + " SET processing_until = "
        + dialect.nowPlus()
        + " WHERE "
        + dialect.idIn(ids)
        + " AND claim_token = ? AND status = 'PROCESSING'";
  }

  /** Marks published the rows a claim still owns. Parameters: the ids, the token. */
  String markPublished(int ids) {
    return "UPDATE "
        + table
        + " SET status = 'PUBLISHED', published_at = "
        + dialect.now()
        + ", "
        + released
        + ", last_error = NULL WHERE "
        + dialect.idIn(ids)
        + " AND claim_token = ?";
  }

  /** Locks the rows of a claim it still owns. Parameters: the ids, the token. */
  String owned(int ids) {
    return "SELECT id FROM "
        + table
        + " WHERE "
        + dialect.idIn(ids)
        + " AND claim_token = ? FOR UPDATE";
  }

  /**
   * Ends the lease of one row that was not published, fenced by the claim token. Parameters: the
   * delay (not for DEAD), the reason, the id, the token.
   */
  String fail(OutboxStore.Failure.Kind kind) {
    String set =
        switch (kind) {
          case RETRY -> "status = 'PENDING', next_attempt_at = " + dialect.nowPlus();
          case DEAD -> "status = 'DEAD'";
          case RELEASE ->
              "status = 'PENDING', attempts = attempts - 1, next_attempt_at = " + dialect.nowPlus();
        };
    return "UPDATE "
        + table
        + " SET "
        + set
        + ", "
        + released
        + ", last_error = ? WHERE id = ? AND claim_token = ?";
  }
}
