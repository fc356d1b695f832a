package io.outboxrelay.bench;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * The PostgreSQL outbox table's state at one moment, from the server's statistics views (no query
 * of the table itself): tuples, size, vacuums, the scans of the claims' index, and how old the
 * oldest snapshot in the database is. The counters are cumulative; a window's figure is the
 * difference of two samples. The statistics lag the backends by about a second (they flush them
 * when idle, at most once a second).
 *
 * @param atMillis when it was read (wall clock)
 * @param liveTuples {@code n_live_tup}
 * @param deadTuples {@code n_dead_tup}: row versions deleted or updated and not yet removed
 * @param totalBytes {@code pg_total_relation_size}: heap, indexes and TOAST
 * @param vacuums VACUUMs of the table so far, manual and automatic
 * @param statusIndexScans scans of the index {@value #STATUS_INDEX} so far
 * @param statusIndexTuplesRead index entries those scans returned so far, entries of dead row
 *     versions included until the index forgets them
 * @param oldestXminAge {@code age(backend_xmin)} of the session with the oldest snapshot in the
 *     database: transactions since the horizon
 */
record OutboxTableSample(
    long atMillis,
    long liveTuples,
    long deadTuples,
    long totalBytes,
    long vacuums,
    long statusIndexScans,
    long statusIndexTuplesRead,
    long oldestXminAge) {

  /** The index the relay's claims walk: {@code (status, id)}, from config/postgresql. */
  static final String STATUS_INDEX = "ix_outbox_events_status_id";

  private static final String QUERY =
      "SELECT s.n_live_tup, s.n_dead_tup, pg_total_relation_size(s.relid),"
          + " s.vacuum_count + s.autovacuum_count, coalesce(i.idx_scan, 0),"
          + " coalesce(i.idx_tup_read, 0),"
          + " (SELECT coalesce(max(age(a.backend_xmin)), 0) FROM pg_stat_activity a"
          + " WHERE a.datname = current_database())"
          + " FROM pg_stat_user_tables s LEFT JOIN pg_stat_user_indexes i"
          + " ON i.relid = s.relid AND i.indexrelname = '"
          + STATUS_INDEX
          + "' WHERE s.relname = 'outbox_events'";

  /**
   * Reads the sample.
   *
   * @param c a connection into the outbox database, auto-commit on (each read its own snapshot)
   * @throws SQLException when the query fails
   * @throws IllegalStateException when the database has no outbox_events table
   */
  static OutboxTableSample read(Connection c) throws SQLException {
    try (Statement st = c.createStatement();
        ResultSet rs = st.executeQuery(QUERY)) {
      if (!rs.next()) {
        throw new IllegalStateException("no table outbox_events in pg_stat_user_tables");
      }
      return new OutboxTableSample(
          System.currentTimeMillis(),
          rs.getLong(1),
          rs.getLong(2),
          rs.getLong(3),
          rs.getLong(4),
          rs.getLong(5),
          rs.getLong(6),
          rs.getLong(7));
    }
  }

  /** Index entries read per scan of {@value #STATUS_INDEX} since {@code earlier}; NaN if none. */
  double statusIndexTuplesPerScan(OutboxTableSample earlier) {
    long scans = statusIndexScans - earlier.statusIndexScans;
    return scans <= 0
        ? Double.NaN
        : (double) (statusIndexTuplesRead - earlier.statusIndexTuplesRead) / scans;
  }
}
