package io.outboxrelay.relay.source.polling;

import io.outboxrelay.relay.config.Ordering;
import io.outboxrelay.relay.source.SqlDialect;

/**
 * Every statement a polling worker runs on one outbox table, in one place to read: the claim
 * (window end, pending heads, expired leases), the lease renewal, and the fenced finish. Built once
 * per store from the {@link SqlDialect}'s fragments; the order of the {@code ?} parameters is given
 * with each. Immutable and thread-safe.
 */
final class OutboxStatements {

  /** The assignments that end a row's lease: no claim owns it, and its lease ended now. */
  private final String released;

  private final SqlDialect dialect;
  private final String table;
  private final String columns;
  private final String windowEnd;
  private final String pendingClaim;
  private final String expiredClaim;

  /**
   * @param aggregateVersions whether claims read the optional {@code aggregate_version} column
   */
  OutboxStatements(
      SqlDialect dialect,
      String table,
      Ordering ordering,
      boolean deadBlocksAggregate,
      boolean aggregateVersions) {
    this.dialect = dialect;
    this.table = table;
    String now = dialect.now();
    this.released = "claim_token = " + dialect.noClaimToken() + ", processing_until = " + now;
    this.columns =
        "e.id, e."
            + dialect.eventIdText()
            + ", e.aggregate_type, e.aggregate_id, e.event_type, e."
            + dialect.payloadText()
            + ", e.created_at, e.attempts, "
            + now
            + (aggregateVersions ? ", e.aggregate_version" : "");
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
    this.windowEnd = windowEndQuery(dialect, table, "PENDING", "");
    this.pendingClaim =
        claimQuery(
            dialect.statusIdIndexHint()
                + " WHERE e.status = 'PENDING' AND e.id > ? AND e.id <= ?"
                + " AND e.next_attempt_at <= "
                + now
                + pendingHead);
    this.expiredClaim =
        claimQuery(" WHERE e.status = 'PROCESSING' AND e.processing_until < " + now + expiredHead);
  }

  /** The claim's select over alias {@code e}, with what follows {@code FROM table e}. */
  private String claimQuery(String where) {
    return "SELECT "
        + columns
        + " FROM "
        + table
        + " e"
        + where
        + " ORDER BY e.id LIMIT ? "
        + dialect.forUpdateSkipLocked();
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

  /** A window's last pending id. Parameters: the cursor (exclusive), the window size minus one. */
  String windowEnd() {
    return windowEnd;
  }

  /**
   * The due pending heads of a window, locked. Parameters: the cursor (exclusive), the window's
   * last id (inclusive), the limit.
   */
  String pendingClaim() {
    return pendingClaim;
  }

  /**
   * The rows whose lease expired (heads only with aggregate ordering), locked. Parameter: limit.
   */
  String expiredClaim() {
    return expiredClaim;
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
