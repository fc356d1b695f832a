package io.outboxrelay.relay.source.polling;

import io.outboxrelay.relay.config.Ordering;
import io.outboxrelay.router.OutboxEvent;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * The polling statements over one connection: claim, finish, reschedule, bury, release, and delete
 * old rows. Each method is one short READ COMMITTED transaction; none spans a Kafka send. Every
 * time in a predicate or a stored lease or retry time is the database's clock.
 *
 * <p>Claims take only <em>due</em> rows: {@code PENDING} rows whose {@code next_attempt_at} has
 * passed, and {@code PROCESSING} rows whose lease ({@code processing_until}) has expired. With
 * {@link Ordering#AGGREGATE} they also take only an aggregate's <em>head</em>: a row with no
 * earlier (lower id) row of its aggregate that is unpublished. A claim looks at most at the {@code
 * window} oldest pending rows, which bounds its work when many rows wait behind their aggregate's
 * head.
 *
 * <p>Not thread-safe: one instance per worker, which owns the connection.
 */
final class OutboxStore {

  /** A row already published by someone else, or one this worker no longer owns. */
  record Finish(List<Long> published, List<Long> lost) {}

  private final Connection connection;
  private final SqlDialect dialect;
  private final String table;
  private final String pendingClaim;
  private final String expiredClaim;

  OutboxStore(
      Connection connection,
      SqlDialect dialect,
      String table,
      Ordering ordering,
      boolean deadBlocksAggregate)
      throws SQLException {
    this.connection = connection;
    this.dialect = dialect;
    this.table = table;
    connection.setAutoCommit(false);
    connection.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
    String columns =
        "e.id, "
            + prefixed(dialect.eventIdText())
            + ", e.aggregate_type, e.aggregate_id,"
            + " e.event_type, "
            + prefixed(dialect.payloadText())
            + ", e.created_at, e.attempts, "
            + dialect.now();
    String head =
        ordering == Ordering.AGGREGATE
            ? " AND NOT EXISTS (SELECT 1 FROM "
                + table
                + " p WHERE p.aggregate_type ="
                + " e.aggregate_type AND p.aggregate_id = e.aggregate_id AND p.status IN ("
                + (deadBlocksAggregate
                    ? "'PENDING', 'PROCESSING', 'DEAD'"
                    : "'PENDING', 'PROCESSING'")
                + ") AND p.id < e.id)"
            : "";
    this.pendingClaim =
        "SELECT "
            + columns
            + " FROM "
            + table
            + " e WHERE e.status = 'PENDING'"
            + " AND e.id <= (SELECT MAX(w.id) FROM (SELECT id FROM "
            + table
            + " WHERE status = 'PENDING' ORDER BY id LIMIT ?) w)"
            + " AND e.next_attempt_at <= "
            + dialect.now()
            + head
            + " ORDER BY e.id LIMIT ? "
            + dialect.forUpdateSkipLocked();
    this.expiredClaim =
        "SELECT "
            + columns
            + " FROM "
            + table
            + " e WHERE e.status = 'PROCESSING'"
            + " AND e.processing_until < "
            + dialect.now()
            + head
            + " ORDER BY e.id LIMIT ? "
            + dialect.forUpdateSkipLocked();
  }

  private static String prefixed(String column) {
    return "e." + column;
  }

  /** The claim query for pending rows, for EXPLAIN in tests. */
  String pendingClaimSql() {
    return pendingClaim;
  }

  /**
   * Claims up to {@code limit} due events and leases them for {@code lease}. Rows whose lease
   * expired on attempt {@code maxAttempts} go DEAD instead.
   *
   * @return what was claimed; never null
   * @throws SQLException when the transaction fails (it is rolled back)
   */
  Claim claim(int window, int limit, Duration lease, int maxAttempts) throws SQLException {
    try {
      List<ClaimedEvent> candidates = new ArrayList<>();
      select(expiredClaim, candidates, limit);
      if (candidates.size() < limit) {
        try (PreparedStatement ps = connection.prepareStatement(pendingClaim)) {
          ps.setInt(1, window);
          ps.setInt(2, limit - candidates.size());
          read(ps, candidates);
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
        try (PreparedStatement ps =
            connection.prepareStatement(
                "UPDATE "
                    + table
                    + " SET status = 'PROCESSING', claim_token = ?, processing_until = "
                    + dialect.nowPlus()
                    + ", attempts = attempts + 1 WHERE "
                    + dialect.idIn(ids.size()))) {
          dialect.bindToken(ps, 1, token);
          dialect.bindDuration(ps, 2, lease);
          dialect.bindIds(connection, ps, 3, ids);
          ps.executeUpdate();
        }
      }
      if (!dead.isEmpty()) {
        try (PreparedStatement ps =
            connection.prepareStatement(
                "UPDATE "
                    + table
                    + " SET status = 'DEAD', claim_token = NULL, processing_until ="
                    + " NULL, last_error = ? WHERE "
                    + dialect.idIn(dead.size()))) {
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
      return new Claim(
          token, claimed, dead, candidates.isEmpty() ? null : candidates.get(0).databaseTime());
    } catch (SQLException | RuntimeException e) {
      rollbackQuietly();
      throw e;
    }
  }

  private void select(String sql, List<ClaimedEvent> into, int limit) throws SQLException {
    try (PreparedStatement ps = connection.prepareStatement(sql)) {
      ps.setInt(1, limit);
      read(ps, into);
    }
  }

  private static void read(PreparedStatement ps, List<ClaimedEvent> into) throws SQLException {
    try (ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        String payload = rs.getString(6);
        Timestamp created = rs.getTimestamp(7);
        into.add(
            new ClaimedEvent(
                new OutboxEvent(
                    rs.getLong(1),
                    rs.getString(2),
                    rs.getString(3),
                    rs.getString(4),
                    rs.getString(5),
                    payload == null ? null : payload.getBytes(StandardCharsets.UTF_8),
                    created == null ? null : created.toInstant()),
                rs.getInt(8) + 1,
                rs.getTimestamp(9).toInstant()));
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
      List<Long> owned = new ArrayList<>();
      if (!published.isEmpty()) {
        try (PreparedStatement ps =
            connection.prepareStatement(
                "SELECT id FROM "
                    + table
                    + " WHERE "
                    + dialect.idIn(published.size())
                    + " AND claim_token = ? FOR UPDATE")) {
          int next = dialect.bindIds(connection, ps, 1, published);
          dialect.bindToken(ps, next, token);
          try (ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
              owned.add(rs.getLong(1));
            }
          }
        }
        if (!owned.isEmpty()) {
          try (PreparedStatement ps =
              connection.prepareStatement(
                  "UPDATE "
                      + table
                      + " SET status = 'PUBLISHED', published_at = "
                      + dialect.now()
                      + ", claim_token = NULL, processing_until = NULL, last_error = NULL WHERE "
                      + dialect.idIn(owned.size())
                      + " AND claim_token = ?")) {
            int next = dialect.bindIds(connection, ps, 1, owned);
            dialect.bindToken(ps, next, token);
            ps.executeUpdate();
          }
        }
      }
      for (Failure f : failures) {
        fail(token, f);
      }
      connection.commit();
      List<Long> lost = new ArrayList<>(published);
      lost.removeAll(owned);
      return new Finish(owned, lost);
    } catch (SQLException | RuntimeException e) {
      rollbackQuietly();
      throw e;
    }
  }

  /** What to do with one event that was not published. */
  record Failure(long id, Kind kind, Duration retryIn, String reason) {
    enum Kind {
      /** Retry after {@code retryIn}. */
      RETRY,
      /** Poison: DEAD now. */
      DEAD,
      /** Not this event's fault (the relay is stopping): back to PENDING, attempt not counted. */
      RELEASE
    }
  }

  private void fail(String token, Failure f) throws SQLException {
    String sql =
        switch (f.kind()) {
          case RETRY ->
              "UPDATE "
                  + table
                  + " SET status = 'PENDING', next_attempt_at = "
                  + dialect.nowPlus()
                  + ", claim_token = NULL, processing_until = NULL, last_error = ? WHERE id = ? AND"
                  + " claim_token = ?";
          case DEAD ->
              "UPDATE "
                  + table
                  + " SET status = 'DEAD', claim_token = NULL, processing_until ="
                  + " NULL, last_error = ? WHERE id = ? AND claim_token = ?";
          case RELEASE ->
              "UPDATE "
                  + table
                  + " SET status = 'PENDING', claim_token = NULL, processing_until ="
                  + " NULL, attempts = attempts - 1, last_error = ? WHERE id = ? AND claim_token = ?";
        };
    try (PreparedStatement ps = connection.prepareStatement(sql)) {
      int i = 1;
      if (f.kind() == Failure.Kind.RETRY) {
        dialect.bindDuration(ps, i++, f.retryIn());
      }
      ps.setString(i++, truncate(f.reason()));
      ps.setLong(i++, f.id());
      dialect.bindToken(ps, i, token);
      ps.executeUpdate();
    }
  }

  /**
   * Deletes up to {@code limit} PUBLISHED rows published more than {@code age} ago.
   *
   * @return the number deleted
   */
  int deletePublishedOlderThan(Duration age, int limit) throws SQLException {
    try (PreparedStatement ps = connection.prepareStatement(dialect.deleteOldPublished(table))) {
      dialect.bindDuration(ps, 1, age);
      ps.setInt(2, limit);
      int n = ps.executeUpdate();
      connection.commit();
      return n;
    } catch (SQLException | RuntimeException e) {
      rollbackQuietly();
      throw e;
    }
  }

  /** Closes the connection, ignoring failures. */
  void closeQuietly() {
    try {
      connection.close();
    } catch (SQLException ignored) {
      // nothing to do
    }
  }

  private static String truncate(String reason) {
    return reason == null || reason.length() <= 1000 ? reason : reason.substring(0, 1000);
  }

  private void rollbackQuietly() {
    try {
      connection.rollback();
    } catch (SQLException ignored) {
      // the connection is probably gone; the worker replaces it
    }
  }
}
