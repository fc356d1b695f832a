package io.outboxrelay.relay.source.polling;

import io.outboxrelay.relay.config.Ordering;
import io.outboxrelay.relay.source.RowLayout;
import io.outboxrelay.relay.source.SourceConnections;
import io.outboxrelay.relay.source.SqlDialect;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * The polling work over one connection: claim, renew, finish (publish, reschedule, bury, release);
 * the statements themselves are in {@link OutboxStatements}, retention in {@link OutboxRetention}.
 * Each method is one short READ COMMITTED transaction; none spans a Kafka send. Every time in a
 * predicate or a stored lease or retry time is the database's clock.
 *
 * <p>Claims take only <em>due</em> rows: {@code PENDING} rows whose {@code next_attempt_at} has
 * passed, and {@code PROCESSING} rows whose lease ({@code processing_until}) has expired. With
 * {@link Ordering#AGGREGATE} they also take only an aggregate's <em>head</em>: a row with no
 * earlier (lower id) row of its aggregate that is unpublished ({@code PENDING}, {@code PROCESSING},
 * or {@code DEAD} when a dead event blocks its aggregate). For a pending row that is: it is the
 * aggregate's lowest pending row, and no lower row of the aggregate is leased or dead.
 *
 * <p>A claim looks at one <em>window</em> of at most {@code window} pending rows in id order,
 * starting after this store's cursor. A full batch keeps the cursor (the window may hold more);
 * otherwise the cursor moves past the window, and back to the start once a window reaches the end
 * of the pending rows. So the work of one claim is bounded however many rows wait behind their
 * aggregate's head, and rows that cannot go now (followers of a DEAD event, events waiting for a
 * retry) never stop the rows behind them: the next claim looks further on.
 *
 * <p>Where the dialect {@link SqlDialect#claimsFromOrderedWindow claims from an ordered window}
 * (PostgreSQL), a {@link ClaimSweep} does the same with a plain read of the unsettled rows in id
 * order, the heads chosen here, and a lock of exactly the chosen rows; it takes expired leases from
 * the same window, whatever {@code takeExpired} says.
 *
 * <p>Releasing a row (publish, retry, DEAD) sets {@code claim_token} to {@link
 * SqlDialect#noClaimToken} and {@code processing_until} to the database's time: the lease ended
 * then. Neither fills or empties a NULL, so on MariaDB/MySQL, whose bookkeeping columns are
 * fixed-width and NOT NULL, a claim updates its rows in place; a finish rewrites each row once, as
 * it fills {@code published_at}.
 *
 * <p>Not thread-safe: one instance per worker, which owns the connection.
 */
final class OutboxStore {

  /** A row already published by someone else, or one this worker no longer owns. */
  record Finish(List<Long> published, List<Long> lost) {}

  private final Connection connection;
  private final SqlDialect dialect;
  private final OutboxStatements sql;

  /** The columns claims read, and how a row becomes an event. */
  private final RowLayout layout;

  /** Pending rows with an id at most this have been looked at in this sweep. */
  private long cursor;

  /** Where the relay chooses the heads ({@link SqlDialect#claimsFromOrderedWindow}); else null. */
  private final ClaimSweep sweep;

  /**
   * @param layout the columns claims read (found at start: optional columns the table lacks are not
   *     read)
   * @param floorCheck the net under the floor of the claims' sweeps, shared by the workers; used
   *     only where claims read an ordered window ({@link ClaimSweep})
   */
  OutboxStore(
      Connection connection,
      String table,
      Ordering ordering,
      boolean deadBlocksAggregate,
      RowLayout layout,
      FloorCheck floorCheck)
      throws SQLException {
    this.connection = connection;
    this.layout = layout;
    this.dialect = layout.dialect();
    this.sql = OutboxStatements.of(table, ordering, deadBlocksAggregate, layout);
    this.sweep =
        dialect.claimsFromOrderedWindow()
            ? new ClaimSweep(
                sql, layout, ordering == Ordering.AGGREGATE, deadBlocksAggregate, floorCheck)
            : null;
    readCommitted(connection);
    if (!dialect.pollingSessionSettings().isEmpty()) {
      try (java.sql.Statement st = connection.createStatement()) {
        for (String setting : dialect.pollingSessionSettings()) {
          st.execute(setting);
        }
      }
      connection.commit();
    }
  }

  /**
   * The window read of a claim that chooses the heads itself, for EXPLAIN in tests; parameters: the
   * id (exclusive), the window size, the id, the window size, the window size.
   */
  String unsettledWindowSql() {
    return sql.unsettledWindow();
  }

  /** The lock of the rows such a claim chose, for tests; parameter: the ids. */
  String takeChosenSql() {
    return sql.takeChosen();
  }

  /** The floor of such a claim's sweeps, for tests; 0 where claims read no ordered window. */
  long floor() {
    return sweep == null ? 0 : sweep.floor();
  }

  /**
   * The lowest unsettled id, read from the first row in a transaction of its own, for the {@link
   * FloorCheck}; only where claims read an ordered window.
   *
   * @return the id, or {@code Long.MAX_VALUE} when no row is unsettled
   * @throws SQLException when the read fails (it is rolled back)
   */
  long lowestUnsettled() throws SQLException {
    if (sweep == null) {
      throw new IllegalStateException("claims here read no ordered window");
    }
    try {
      long lowest = sweep.lowestUnsettled(connection);
      connection.commit();
      return lowest;
    } catch (SQLException | RuntimeException e) {
      rollbackQuietly();
      throw e;
    }
  }

  /**
   * The claim query for pending rows, for EXPLAIN in tests; parameters: the cursor (exclusive), the
   * window's last id (inclusive), the limit.
   */
  String pendingClaimSql() {
    return sql.pendingClaim();
  }

  /**
   * The query for a window's last id, for EXPLAIN in tests; parameters: the cursor (exclusive), the
   * window size minus one.
   */
  String windowEndSql() {
    return sql.windowEnd();
  }

  /**
   * Claims up to {@code limit} due events and leases them for {@code lease}. With {@code
   * takeExpired}, rows whose lease expired come first (it reads every leased row, so workers do it
   * about once a second rather than on every claim); those whose lease expired on attempt {@code
   * maxAttempts} go DEAD instead. Pending rows are taken from the window after the cursor (see the
   * class comment), which moves only when the claim commits.
   *
   * @param window how many pending rows one claim looks at, at most
   * @return what was claimed; never null
   * @throws SQLException when the transaction fails (it is rolled back)
   */
  Claim claim(int window, int limit, Duration lease, int maxAttempts, boolean takeExpired)
      throws SQLException {
    try {
      List<ClaimedEvent> candidates = new ArrayList<>();
      int expired;
      long nextCursor = cursor;
      if (sweep != null) {
        // Expired leases are in every window: the window holds the leased rows too.
        ClaimSweep.Taken taken = sweep.take(connection, window, limit);
        candidates.addAll(taken.events());
        expired = taken.expired();
      } else {
        if (takeExpired) {
          select(sql.expiredClaim(), candidates, limit);
        }
        expired = candidates.size();
        if (candidates.size() < limit) {
          nextCursor = claimPending(window, limit - candidates.size(), candidates);
        }
      }
      List<ClaimedEvent> claimed = new ArrayList<>(candidates.size());
      List<Long> dead = new ArrayList<>();
      for (ClaimedEvent c : candidates) {
        if (c.attempt() > maxAttempts) {
          dead.add(c.event().id());
        } else {
          claimed.add(c);
        }
      }
      String token = UUID.randomUUID().toString();
      if (!claimed.isEmpty()) {
        List<Long> ids = claimed.stream().map(c -> c.event().id()).toList();
        try (PreparedStatement ps = connection.prepareStatement(sql.lease(ids.size()))) {
          dialect.bindToken(ps, 1, token);
          dialect.bindDuration(ps, 2, lease);
          dialect.bindIds(connection, ps, 3, ids);
          ps.executeUpdate();
        }
      }
      if (!dead.isEmpty()) {
        try (PreparedStatement ps = connection.prepareStatement(sql.buryExpired(dead.size()))) {
          ps.setString(
              1,
              "lease expired on attempt "
                  + maxAttempts
                  + " of "
                  + maxAttempts
                  + ": the worker"
                  + " publishing it stopped or stalled every time");
          dialect.bindIds(connection, ps, 2, dead);
          ps.executeUpdate();
        }
      }
      connection.commit();
      cursor = nextCursor;
      if (sweep != null) {
        sweep.committed();
      }
      return new Claim(
          token,
          claimed,
          dead,
          expired - dead.size(),
          candidates.isEmpty() ? null : candidates.get(0).databaseTime());
    } catch (SQLException | RuntimeException e) {
      rollbackQuietly();
      if (sweep != null) {
        sweep.abandoned();
      }
      throw e;
    }
  }

  /**
   * Reads up to {@code limit} pending heads from the window after the cursor.
   *
   * @return where the next claim starts
   */
  private long claimPending(int window, int limit, List<ClaimedEvent> into) throws SQLException {
    long last = Long.MAX_VALUE; // fewer than `window` pending rows after the cursor: to the end
    try (PreparedStatement ps = connection.prepareStatement(sql.windowEnd())) {
      ps.setLong(1, cursor);
      ps.setInt(2, window - 1);
      try (ResultSet rs = ps.executeQuery()) {
        if (rs.next()) {
          last = rs.getLong(1);
        }
      }
    }
    int before = into.size();
    try (PreparedStatement ps = connection.prepareStatement(sql.pendingClaim())) {
      ps.setLong(1, cursor);
      ps.setLong(2, last);
      ps.setInt(3, limit);
      read(ps, into);
    }
    if (into.size() - before == limit) {
      return cursor; // the window may hold more
    }
    // Nothing more to take in this window now: look further on next time, or from the start.
    return last == Long.MAX_VALUE ? 0 : last;
  }

  private void select(String query, List<ClaimedEvent> into, int limit) throws SQLException {
    try (PreparedStatement ps = connection.prepareStatement(query)) {
      ps.setInt(1, limit);
      read(ps, into);
    }
  }

  private void read(PreparedStatement ps, List<ClaimedEvent> into) throws SQLException {
    try (ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        into.add(ClaimedEvent.of(layout.readRow(rs)));
      }
    }
  }

  /**
   * Finishes published events: marks PUBLISHED those this claim still owns (its token holds),
   * reschedules retriable failures, buries poison events — all in one transaction, all fenced by
   * the claim token, so a worker whose lease expired never overwrites the new owner.
   *
   * @param token the claim token
   * @param published ids Kafka acknowledged
   * @param failures the events that failed, with what to do with each
   * @return which acknowledged ids were marked, and which this worker had lost
   * @throws SQLException when the transaction fails (it is rolled back)
   */
  Finish finish(String token, List<Long> published, List<Failure> failures) throws SQLException {
    try {
      // The usual case: every row is still ours, and one fenced UPDATE marks them all.
      if (published.isEmpty() || markPublished(token, published) == published.size()) {
        fail(token, failures);
        connection.commit();
        return new Finish(published, List.of());
      }
      // Some lease was lost: undo, and find exactly which rows are still ours.
      connection.rollback();
      List<Long> owned = new ArrayList<>();
      try (PreparedStatement ps = connection.prepareStatement(sql.owned(published.size()))) {
        int next = dialect.bindIds(connection, ps, 1, published);
        dialect.bindToken(ps, next, token);
        try (ResultSet rs = ps.executeQuery()) {
          while (rs.next()) {
            owned.add(rs.getLong(1));
          }
        }
      }
      if (!owned.isEmpty()) {
        markPublished(token, owned);
      }
      fail(token, failures);
      connection.commit();
      List<Long> lost = new ArrayList<>(published);
      lost.removeAll(owned);
      return new Finish(owned, lost);
    } catch (SQLException | RuntimeException e) {
      rollbackQuietly();
      throw e;
    }
  }

  /**
   * Extends the lease of the rows of a claim that it still owns to the database's now plus {@code
   * lease}, in one short transaction. Rows whose {@code claim_token} changed were taken over by
   * another worker (this one's lease had expired) and are left alone.
   *
   * @param token the claim token
   * @param ids the claim's rows
   * @param lease how long from the database's now the rows stay owned
   * @return how many rows the claim still owns
   * @throws SQLException when the transaction fails (it is rolled back)
   */
  int renew(String token, List<Long> ids, Duration lease) throws SQLException {
    try (PreparedStatement ps = connection.prepareStatement(sql.renew(ids.size()))) {
      dialect.bindDuration(ps, 1, lease);
      int next = dialect.bindIds(connection, ps, 2, ids);
      dialect.bindToken(ps, next, token);
      // Never longer than a renewal period: a renewal that hangs is worth nothing.
      ps.setQueryTimeout((int) Math.max(1, lease.toSeconds() / 4));
      int owned = ps.executeUpdate();
      connection.commit();
      return owned;
    } catch (SQLException | RuntimeException e) {
      rollbackQuietly();
      throw e;
    }
  }

  private int markPublished(String token, List<Long> ids) throws SQLException {
    try (PreparedStatement ps = connection.prepareStatement(sql.markPublished(ids.size()))) {
      int next = dialect.bindIds(connection, ps, 1, ids);
      dialect.bindToken(ps, next, token);
      return ps.executeUpdate();
    }
  }

  /**
   * What to do with one event that was not published.
   *
   * @param retryIn for RETRY and RELEASE, how long after the database's now the event is due again
   */
  record Failure(long id, Kind kind, Duration retryIn, String reason) {
    enum Kind {
      /** Retry after {@code retryIn}; the claim's attempt counts. */
      RETRY,
      /** Poison: DEAD now. */
      DEAD,
      /**
       * Not this event's fault (Kafka is down, the relay is stopping): back to PENDING, due after
       * {@code retryIn}, and the claim's attempt taken back.
       */
      RELEASE
    }
  }

  /** Applies the failures, one batched statement per kind, fenced by the claim token. */
  private void fail(String token, List<Failure> failures) throws SQLException {
    for (Failure.Kind kind : Failure.Kind.values()) {
      List<Failure> ofKind = failures.stream().filter(f -> f.kind() == kind).toList();
      if (ofKind.isEmpty()) {
        continue;
      }
      try (PreparedStatement ps = connection.prepareStatement(sql.fail(kind))) {
        for (Failure f : ofKind) {
          int i = 1;
          if (kind != Failure.Kind.DEAD) {
            dialect.bindDuration(ps, i++, f.retryIn());
          }
          ps.setString(i++, truncate(f.reason()));
          ps.setLong(i++, f.id());
          dialect.bindToken(ps, i, token);
          ps.addBatch();
        }
        ps.executeBatch();
      }
    }
  }

  /** Closes the connection, ignoring failures. */
  void closeQuietly() {
    SourceConnections.closeQuietly(connection);
  }

  private static String truncate(String reason) {
    return reason == null || reason.length() <= 1000 ? reason : reason.substring(0, 1000);
  }

  private void rollbackQuietly() {
    rollbackQuietly(connection);
  }

  /** Sets up a connection for the short READ COMMITTED transactions of polling mode. */
  static void readCommitted(Connection connection) throws SQLException {
    connection.setAutoCommit(false);
    connection.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
  }

  /** Rolls back, ignoring failures: the connection is probably gone, and its owner replaces it. */
  static void rollbackQuietly(Connection connection) {
    try {
      connection.rollback();
    } catch (SQLException ignored) {
      // the connection is probably gone; the worker replaces it
    }
  }
}
