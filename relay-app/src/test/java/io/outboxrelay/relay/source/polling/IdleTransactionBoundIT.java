package io.outboxrelay.relay.source.polling;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.outboxrelay.relay.config.SourceFlavor;
import io.outboxrelay.relay.source.IdleTransactionBound;
import io.outboxrelay.testsupport.outbox.OutboxDatabase;
import io.outboxrelay.testsupport.outbox.SourceDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * A worker frozen between a statement and its commit keeps the rows it updated or locked locked,
 * and SKIP LOCKED claims pass them over: the session bound of the relay's connections frees them.
 */
class IdleTransactionBoundIT {

  /** A lease of 2 s: the server ends a session idle in a write transaction after 1 s. */
  private static final Duration LEASE = Duration.ofSeconds(2);

  @Test
  void mariaDbEndsASessionFrozenBeforeItsCommitSoItsRowsCanBeClaimed() throws Exception {
    try (OutboxDatabase db = OutboxDatabase.forPolling()) {
      freesOnlyTheBoundedSessionsRows(db, SourceFlavor.MARIADB, "FOR UPDATE SKIP LOCKED");
    }
  }

  @Test
  void postgresqlEndsASessionFrozenBeforeItsCommitSoItsRowsCanBeClaimed() throws Exception {
    try (OutboxDatabase db = OutboxDatabase.postgres()) {
      freesOnlyTheBoundedSessionsRows(db, SourceFlavor.POSTGRESQL, "FOR UPDATE SKIP LOCKED");
    }
  }

  // A claim locks its rows with SELECT ... FOR UPDATE SKIP LOCKED before it updates them: a worker
  // frozen in between holds locks without having written anything. Regression: MariaDB's bound was
  // idle_write_transaction_timeout, which such a session never reaches, so its rows stayed locked
  // (and unclaimable) for as long as it was frozen.

  @Test
  void mariaDbEndsASessionFrozenAfterALockingReadSoItsRowsCanBeClaimed() throws Exception {
    try (OutboxDatabase db = OutboxDatabase.forPolling()) {
      freesOnlyTheBoundedSessionsRows(
          db, SourceFlavor.MARIADB, "FOR UPDATE SKIP LOCKED", IdleTransactionBoundIT::lock);
    }
  }

  @Test
  void postgresqlEndsASessionFrozenAfterALockingReadSoItsRowsCanBeClaimed() throws Exception {
    try (OutboxDatabase db = OutboxDatabase.postgres()) {
      freesOnlyTheBoundedSessionsRows(
          db, SourceFlavor.POSTGRESQL, "FOR UPDATE SKIP LOCKED", IdleTransactionBoundIT::lock);
    }
  }

  /** What a frozen worker did to one row before it froze. */
  @FunctionalInterface
  private interface Step {
    void on(Connection c, String eventId) throws SQLException;
  }

  private static void freesOnlyTheBoundedSessionsRows(
      SourceDatabase db, SourceFlavor flavor, String lock) throws Exception {
    freesOnlyTheBoundedSessionsRows(db, flavor, lock, IdleTransactionBoundIT::update);
  }

  private static void freesOnlyTheBoundedSessionsRows(
      SourceDatabase db, SourceFlavor flavor, String lock, Step step) throws Exception {
    db.admin(
        "INSERT INTO outbox_events (event_id, aggregate_type, aggregate_id, event_type, payload)"
            + " VALUES ('00000000-0000-0000-0000-000000000001', 'order', 'o-1', 'Happened', '{}')",
        "INSERT INTO outbox_events (event_id, aggregate_type, aggregate_id, event_type, payload)"
            + " VALUES ('00000000-0000-0000-0000-000000000002', 'order', 'o-2', 'Happened', '{}')");
    try (Connection bounded = db.app();
        Connection unbounded = db.app();
        Connection claimer = db.app()) {
      IdleTransactionBound.apply(bounded, io.outboxrelay.relay.source.SqlDialect.of(flavor), LEASE);
      bounded.setAutoCommit(false);
      unbounded.setAutoCommit(false);
      claimer.setAutoCommit(true);
      // Each "worker" updates (or locks) one row and freezes before its commit.
      step.on(bounded, "00000000-0000-0000-0000-000000000001");
      step.on(unbounded, "00000000-0000-0000-0000-000000000002");
      assertThat(claimable(claimer, lock)).as("both rows locked at first").isZero();

      // The bounded session is ended: its row is claimable again; the other stays locked.
      await().atMost(Duration.ofSeconds(30)).until(() -> claimable(claimer, lock) == 1);
      Thread.sleep(LEASE.toMillis()); // well past the bound: the unbounded one still holds
      assertThat(claimable(claimer, lock)).isEqualTo(1);
      // When the frozen worker wakes, its commit fails: nothing it did lands.
      assertThatThrownBy(bounded::commit).isInstanceOf(SQLException.class);
      unbounded.rollback();
    }
  }

  private static void update(Connection c, String eventId) throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement("UPDATE outbox_events SET status = 'PROCESSING' WHERE event_id = ?")) {
      ps.setString(1, eventId);
      assertThat(ps.executeUpdate()).isEqualTo(1);
    }
  }

  private static void lock(Connection c, String eventId) throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement("SELECT id FROM outbox_events WHERE event_id = ? FOR UPDATE")) {
      ps.setString(1, eventId);
      try (ResultSet rs = ps.executeQuery()) {
        assertThat(rs.next()).isTrue();
      }
    }
  }

  /** How many PENDING rows a claim could lock now, in a transaction of its own. */
  private static int claimable(Connection c, String lock) throws SQLException {
    c.setAutoCommit(false);
    try (PreparedStatement ps =
            c.prepareStatement("SELECT id FROM outbox_events WHERE status = 'PENDING' " + lock);
        ResultSet rs = ps.executeQuery()) {
      int n = 0;
      while (rs.next()) {
        n++;
      }
      return n;
    } finally {
      c.rollback();
      c.setAutoCommit(true);
    }
  }
}
