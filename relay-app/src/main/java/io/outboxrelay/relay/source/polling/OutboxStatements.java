package io.outboxrelay.relay.source.polling;

import io.outboxrelay.relay.config.Ordering;
import io.outboxrelay.relay.source.RowLayout;
import io.outboxrelay.relay.source.SqlDialect;

/**
 * Every statement a polling worker runs on one outbox table, in one place to read: the claim
 * (window end, pending heads, expired leases), the lease renewal, and the fenced finish. Built once
 * per store from the {@link SqlDialect}'s fragments; the order of the {@code ?} parameters is given
 * with each. Immutable and thread-safe.
 *
 * @param dialect the database's fragments
 * @param table the outbox table
 * @param id the sequence column, which orders the rows and names them in the statements
 * @param released the assignments that end a row's lease: no claim owns it, and its lease ended now
 * @param windowEnd a window's last pending id; parameters: the cursor (exclusive), the window size
 *     minus one
 * @param pendingClaim the due pending heads of a window, locked; parameters: the cursor
 *     (exclusive), the window's last id (inclusive), the limit
 * @param expiredClaim the rows whose lease expired (heads only with aggregate ordering), locked;
 *     parameter: the limit
 * @param unsettledWindow where claims choose the heads themselves ({@link
 *     SqlDialect#claimsFromOrderedWindow}): the {@code PENDING} and {@code PROCESSING} rows (and
 *     {@code DEAD} ones where they block their aggregate) after an id, in id order, each with its
 *     aggregate, whether it is leased and whether it is due; parameters: the id (exclusive) and the
 *     window size for each status, then the window size
 * @param takeChosen the chosen rows that are still due (and, when a DEAD row blocks its aggregate,
 *     have no lower DEAD row), the first of them up to the limit, locked; parameters: the ids, the
 *     limit
 */
record OutboxStatements(
    SqlDialect dialect,
    String table,
    String id,
    String released,
    String windowEnd,
    String pendingClaim,
    String expiredClaim,
    String unsettledWindow,
    String takeChosen) {

  /**
   * The statements of one table.
   *
   * @param ordering with {@link Ordering#AGGREGATE}, claims take only an aggregate's head
   * @param deadBlocksAggregate whether a DEAD row holds back the later rows of its aggregate
   * @param layout the columns claims read, the sequence column that orders the rows, the
   *     aggregate's columns the head checks compare, and the database
   */
  static OutboxStatements of(
      String table, Ordering ordering, boolean deadBlocksAggregate, RowLayout layout) {
    SqlDialect dialect = layout.dialect();
    String now = dialect.now();
    String id = layout.sequence();
    String claim = "SELECT " + layout.selectList() + " FROM " + table + " e";
    String locked = " ORDER BY e." + id + " LIMIT ? " + dialect.forUpdateSkipLocked();
    // The head checks read the aggregate's index (aggregate type, aggregate id, status, sequence)
    // one status at a time, so each reads the few rows of that status, never the aggregate's
    // history: "lowest pending id" is one index entry, and PROCESSING and DEAD rows are rare.
    boolean ordered = ordering == Ordering.AGGREGATE;
    String p = table + " p" + dialect.aggregateIndexHint();
    String sameAggregate =
        " WHERE p."
            + layout.columns().aggregateType()
            + " = e."
            + layout.columns().aggregateType()
            + " AND p."
            + layout.columns().aggregateId()
            + " = e."
            + layout.columns().aggregateId();
    String notAfterDead = deadBlocksAggregate ? notAfter(p, sameAggregate, id, "DEAD") : "";
    String pendingHead =
        ordered
            ? " AND e."
                + id
                + " = (SELECT p."
                + id
                + " FROM "
                + p
                + sameAggregate
                + " AND p.status = 'PENDING' ORDER BY p."
                + id
                + " LIMIT 1)"
                + notAfter(p, sameAggregate, id, "PROCESSING")
                + notAfterDead
            : "";
    String expiredHead =
        ordered
            ? notAfter(p, sameAggregate, id, "PENDING")
                + notAfter(p, sameAggregate, id, "PROCESSING")
                + notAfterDead
            : "";
    return new OutboxStatements(
        dialect,
        table,
        id,
        "claim_token = " + dialect.noClaimToken() + ", processing_until = " + now,
        windowEndQuery(dialect, table, id, "PENDING", ""),
        claim
            + dialect.statusIdIndexHint()
            + " WHERE e.status = 'PENDING' AND e."
            + id
            + " > ? AND e."
            + id
            + " <= ?"
            + " AND e.next_attempt_at <= "
            + now
            + pendingHead
            + locked,
        claim
            + " WHERE e.status = 'PROCESSING' AND e.processing_until < "
            + now
            + expiredHead
            + locked,
        unsettledWindow(layout, table, now, ordered && deadBlocksAggregate),
        claim
            + " WHERE e."
            + id
            + " = ANY(?) AND ((e.status = 'PENDING' AND e.next_attempt_at <= "
            + now
            + ") OR (e.status = 'PROCESSING' AND e.processing_until < "
            + now
            + "))"
            + (ordered && deadBlocksAggregate ? noneBefore(p, sameAggregate, id, "DEAD") : "")
            + locked);
  }

  /**
   * The unsettled rows after an id, in id order: an index range scan of {@code (status, id)} per
   * status, each stopping after the window size, merged. Nothing in it is locked, and nothing is
   * evaluated per row but the row's own columns, so its cost is the index entries it walks from the
   * id on, however many rows wait behind the window. With {@code dead}, DEAD rows are in it too,
   * never due: they hold their aggregate back, and the sweeps' floor below them.
   */
  private static String unsettledWindow(RowLayout layout, String table, String now, boolean dead) {
    String id = layout.sequence();
    String scan =
        "(SELECT e."
            + id
            + " AS id, e."
            + layout.columns().aggregateType()
            + " AS aggregate_type, e."
            + layout.columns().aggregateId()
            + " AS aggregate_id, %s AS leased, %s AS due FROM "
            + table
            + " e WHERE e.status = '%s' AND e."
            + id
            + " > ? ORDER BY e."
            + id
            + " LIMIT ?)";
    return "SELECT w.id, w.aggregate_type, w.aggregate_id, w.leased, w.due FROM ("
        + scan.formatted("false", "e.next_attempt_at <= " + now, "PENDING")
        + " UNION ALL "
        + scan.formatted("true", "e.processing_until < " + now, "PROCESSING")
        + (dead ? " UNION ALL " + scan.formatted("false", "false", "DEAD") : "")
        + ") w ORDER BY w.id LIMIT ?";
  }

  /**
   * The last id of a window: the {@code OFFSET ?}-th row with this status after id {@code ?}, in
   * sequence order, with {@code more} columns after it (their parameters come first).
   *
   * @param id the sequence column
   */
  static String windowEndQuery(
      SqlDialect dialect, String table, String id, String status, String more) {
    return "SELECT "
        + id
        + more
        + " FROM "
        + table
        + dialect.statusIdIndexHint()
        + " WHERE status = '"
        + status
        + "' AND "
        + id
        + " > ? ORDER BY "
        + id
        + " LIMIT 1 OFFSET ?";
  }

  /** No row of the aggregate with this status comes before {@code e}; {@code p} names the table. */
  private static String notAfter(String p, String sameAggregate, String id, String status) {
    return " AND NOT EXISTS (" + earlier(p, sameAggregate, id, status) + ")";
  }

  /**
   * No row of the aggregate with this status comes before {@code e}, as a scalar subquery: the
   * planner runs it per row through the aggregate's index, where it may turn {@code NOT EXISTS}
   * into an anti join that reads every row of the status for each row.
   */
  private static String noneBefore(String p, String sameAggregate, String id, String status) {
    return " AND (" + earlier(p, sameAggregate, id, status) + " LIMIT 1) IS NULL";
  }

  /** The rows of {@code e}'s aggregate with this status before it. */
  private static String earlier(String p, String sameAggregate, String id, String status) {
    return "SELECT 1 FROM "
        + p
        + sameAggregate
        + " AND p.status = '"
        + status
        + "' AND p."
        + id
        + " < e."
        + id;
  }

  /** Leases claimed rows. Parameters: the token, the lease, the ids. */
  String lease(int ids) {
    return "UPDATE "
        + table
        + " SET status = 'PROCESSING', claim_token = ?, processing_until = "
        + dialect.nowPlus()
        + ", attempts = attempts + 1 WHERE "
        + dialect.in(id, ids);
  }

  /** Buries rows whose lease expired on their last attempt. Parameters: the reason, the ids. */
  String buryExpired(int ids) {
    return "UPDATE "
        + table
        + " SET status = 'DEAD', "
        + released
        + ", last_error = ? WHERE "
        + dialect.in(id, ids);
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
        + dialect.in(id, ids)
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
        + dialect.in(id, ids)
        + " AND claim_token = ?";
  }

  /** Locks the rows of a claim it still owns. Parameters: the ids, the token. */
  String owned(int ids) {
    return "SELECT "
        + id
        + " FROM "
        + table
        + " WHERE "
        + dialect.in(id, ids)
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
        + ", last_error = ? WHERE "
        + id
        + " = ? AND claim_token = ?";
  }
}
