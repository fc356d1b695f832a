package io.outboxrelay.testsupport.outbox;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.List;

/**
 * Inserts outbox rows with plain SQL {@code INSERT}s into the relay's default table, inside
 * transactions of its own, as an application without the {@code outbox-writer} library does: the
 * fixture for tests of the relay, which need rows and many of them fast, not the library (its own
 * tests use {@code io.outboxrelay.writer.OutboxWriter}). Stateless and thread-safe.
 */
public final class RawOutboxInserts {

  private static final String INSERT =
      "INSERT INTO outbox_events (event_id, aggregate_type, aggregate_id, event_type, payload)"
          + " VALUES (?, ?, ?, ?, ?)";

  private static final String INSERT_VERSIONED =
      "INSERT INTO outbox_events (event_id, aggregate_type, aggregate_id, event_type, payload,"
          + " aggregate_version) VALUES (?, ?, ?, ?, ?, ?)";

  /**
   * Rows sent per JDBC batch. One batch of a 50,000-row transaction (about 22 MB) was refused now
   * and then by the server as a packet over {@code max_allowed_packet}: the driver does not always
   * split it. The rows are still one transaction.
   */
  private static final int BATCH_ROWS = 1_000;

  private RawOutboxInserts() {}

  /**
   * Inserts one event with its aggregate version (into a table with that column) and commits.
   *
   * @param c a connection with auto-commit off
   * @param event the event
   * @param version its aggregate version, or {@code null} for none
   * @throws SQLException on failure (the transaction is rolled back)
   */
  public static void writeVersioned(Connection c, TestEvent event, Long version)
      throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(INSERT_VERSIONED)) {
      ps.setString(1, event.eventId());
      ps.setString(2, event.aggregateType());
      ps.setString(3, event.aggregateId());
      ps.setString(4, event.eventType());
      ps.setString(5, event.payload());
      if (version == null) {
        ps.setNull(6, java.sql.Types.BIGINT);
      } else {
        ps.setLong(6, version);
      }
      ps.executeUpdate();
      c.commit();
    } catch (SQLException e) {
      c.rollback();
      throw e;
    }
  }

  /**
   * Writes the events in one transaction as the database's application user, and registers them
   * with the ledger once committed.
   *
   * @param db the database
   * @param ledger the test's ledger
   * @param events the events, inserted in order
   * @throws SQLException on failure (nothing is registered)
   */
  public static void write(SourceDatabase db, Ledger ledger, List<TestEvent> events)
      throws SQLException {
    try (Connection c = db.app()) {
      writeTransaction(c, events);
    }
    ledger.expect(events);
  }

  /**
   * Inserts the events in one transaction and commits.
   *
   * @param c a connection with auto-commit off
   * @param events the events, inserted in order
   * @throws SQLException on failure (the transaction is rolled back)
   */
  public static void writeTransaction(Connection c, List<TestEvent> events) throws SQLException {
    try {
      insertWithoutCommit(c, events);
      c.commit();
    } catch (SQLException e) {
      c.rollback();
      throw e;
    }
  }

  /**
   * Inserts the events and leaves the transaction open: the rows take their ids now and become
   * visible only when the caller commits.
   *
   * @param c a connection with auto-commit off
   * @param events the events, inserted in order
   * @throws SQLException on failure
   */
  public static void insertWithoutCommit(Connection c, List<TestEvent> events) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(INSERT)) {
      int batched = 0;
      for (TestEvent e : events) {
        ps.setString(1, e.eventId());
        ps.setString(2, e.aggregateType());
        ps.setString(3, e.aggregateId());
        ps.setString(4, e.eventType());
        ps.setString(5, e.payload());
        ps.addBatch();
        if (++batched == BATCH_ROWS) {
          ps.executeBatch();
          batched = 0;
        }
      }
      if (batched > 0) {
        ps.executeBatch();
      }
    }
  }
}
