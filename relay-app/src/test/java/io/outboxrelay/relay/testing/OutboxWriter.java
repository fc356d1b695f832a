package io.outboxrelay.relay.testing;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.List;

/** Writes outbox rows the way an application does: inside its own transactions. */
public final class OutboxWriter {

  private static final String INSERT =
      "INSERT INTO outbox_events (event_id, aggregate_type, aggregate_id, event_type, payload)"
          + " VALUES (?, ?, ?, ?, ?)";

  private OutboxWriter() {}

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
      for (TestEvent e : events) {
        ps.setString(1, e.eventId());
        ps.setString(2, e.aggregateType());
        ps.setString(3, e.aggregateId());
        ps.setString(4, e.eventType());
        ps.setString(5, e.payload());
        ps.addBatch();
      }
      ps.executeBatch();
    }
  }
}
