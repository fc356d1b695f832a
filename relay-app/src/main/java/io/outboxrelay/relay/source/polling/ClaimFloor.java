package io.outboxrelay.relay.source.polling;

import io.outboxrelay.relay.source.SqlDialect;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.function.LongSupplier;

/**
 * The lowest id a claim has to look at, on PostgreSQL: every row below the floor is settled
 * (PUBLISHED, SKIPPED, or DEAD where a dead row does not hold back its aggregate) and no
 * transaction can still commit a row there. A claim's windows, its expired-lease scan and its
 * aggregate head checks start at the floor instead of the table's first row.
 *
 * <p>Why: PostgreSQL keeps every version of a row until no snapshot can see it. While anything
 * holds the xmin horizon back (a long transaction, {@code pg_dump}, a replication slot), each claim
 * and publish leaves index entries in {@code (status, id)} and the aggregate index whose row
 * versions cannot be removed, and a scan from the first row reads them all: measured, claims read
 * 60,000 and more such entries each after five minutes at 1,000 events/s, and throughput fell to
 * 40%. From the floor, a claim reads only the entries of rows still in flight.
 *
 * <p>How the floor moves: a reading, in one statement (one snapshot), takes the lowest id of a row
 * that is PENDING or PROCESSING (or DEAD where dead rows block their aggregate) at or above the
 * floor, or one past the highest id when there is none, with the snapshot's first unassigned
 * transaction id. That id becomes the floor only once every transaction running at the reading has
 * ended (a later reading's oldest running transaction id is at least it), and then at most the
 * lowest unsettled id of the later reading, which sees the rows those transactions committed. Ids
 * handed out after the first reading are higher than every id it saw, since the sequence column
 * increases (an identity column or a sequence with {@code CACHE 1}, PostgreSQL's default). So a row
 * that commits late, after rows with higher ids, is never left below the floor.
 *
 * <p>One gap remains: a transaction that took its id before the first reading but was given its
 * transaction id after it, that is, one whose outbox INSERT was its first write and stalled between
 * the two. So, and for rows an operator makes PENDING again below the floor, the floor falls back
 * to the first row every {@link #RECHECK}: such a row waits at most that long, and is never lost. A
 * long transaction that has written (and so holds a transaction id) holds the floor where it is
 * until it ends; a read-only one (a report, {@code pg_dump}) does not.
 *
 * <p>Not thread-safe: one per {@link OutboxStore}.
 */
final class ClaimFloor {

  /** How often the floor falls back to the table's first row. */
  static final Duration RECHECK = Duration.ofSeconds(60);

  /** The least time between two readings. */
  static final Duration STEP = Duration.ofMillis(500);

  private static final long NONE = -1;

  private final String reading;
  private final int statuses;
  private final LongSupplier nanoTime;

  private long floor;
  private long candidate = NONE;
  private long candidateXmax;
  private long lastRecheck;
  private long lastStep;

  private ClaimFloor(String reading, int statuses, LongSupplier nanoTime) {
    this.reading = reading;
    this.statuses = statuses;
    this.nanoTime = nanoTime;
    this.lastRecheck = nanoTime.getAsLong();
    this.lastStep = lastRecheck - STEP.toNanos();
  }

  /**
   * The floor of one table, or null where the database offers no transaction horizon (then claims
   * start from the first row).
   *
   * @param id the sequence column
   * @param deadHolds whether a DEAD row holds back its aggregate's later rows (it then holds the
   *     floor too, so that the head checks, which start at the floor, still see it)
   */
  static ClaimFloor of(SqlDialect dialect, String table, String id, boolean deadHolds) {
    return of(dialect, table, id, deadHolds, System::nanoTime);
  }

  static ClaimFloor of(
      SqlDialect dialect, String table, String id, boolean deadHolds, LongSupplier nanoTime) {
    String horizon = dialect.transactionHorizon();
    if (horizon == null) {
      return null;
    }
    StringBuilder lowest = new StringBuilder("LEAST(");
    String[] unsettled =
        deadHolds
            ? new String[] {"PENDING", "PROCESSING", "DEAD"}
            : new String[] {"PENDING", "PROCESSING"};
    for (int i = 0; i < unsettled.length; i++) {
      lowest
          .append(i == 0 ? "" : ", ")
          .append("(SELECT min(")
          .append(id)
          .append(") FROM ")
          .append(table)
          .append(" WHERE status = '")
          .append(unsettled[i])
          .append("' AND ")
          .append(id)
          .append(" >= ?)");
    }
    lowest.append(")");
    String reading =
        "SELECT " + horizon + ", " + lowest + ", (SELECT max(" + id + ") FROM " + table + ")";
    return new ClaimFloor(reading, unsettled.length, nanoTime);
  }

  /**
   * The floor: no row below it is unsettled.
   *
   * @return an id, 0 before the first reading
   */
  long value() {
    return floor;
  }

  /**
   * The exclusive cursor from which a sweep of the pending rows starts.
   *
   * @return the id below the floor
   */
  long sweepStart() {
    return Math.max(0, floor - 1);
  }

  /** The SQL of a reading, for EXPLAIN in tests; its parameters are all the floor. */
  String readingSql() {
    return reading;
  }

  /**
   * Moves the floor, where it may: called when a claim's sweep reached the end of the pending rows.
   * Reads at most once per {@link #STEP}; falls back to the first row every {@link #RECHECK}.
   *
   * @param c the claim's connection, in its transaction
   * @throws SQLException when the reading fails
   */
  void sweepEnded(Connection c) throws SQLException {
    long now = nanoTime.getAsLong();
    if (now - lastRecheck >= RECHECK.toNanos()) {
      floor = 0;
      candidate = NONE;
      lastRecheck = now;
    }
    if (now - lastStep < STEP.toNanos()) {
      return;
    }
    lastStep = now;
    try (PreparedStatement ps = c.prepareStatement(reading)) {
      for (int i = 1; i <= statuses; i++) {
        ps.setLong(i, floor);
      }
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        long xmin = rs.getLong(1);
        long xmax = rs.getLong(2);
        long lowest = rs.getLong(3);
        boolean anyUnsettled = !rs.wasNull();
        long highest = rs.getLong(4);
        boolean anyRow = !rs.wasNull();
        if (candidate != NONE) {
          if (xmin < candidateXmax) {
            return; // a transaction running at the last reading may still commit below it
          }
          floor = Math.max(floor, anyUnsettled ? Math.min(candidate, lowest) : candidate);
        }
        long next = anyUnsettled ? lowest : anyRow ? highest + 1 : floor;
        candidate = next > floor ? next : NONE;
        candidateXmax = xmax;
      }
    }
  }
}
