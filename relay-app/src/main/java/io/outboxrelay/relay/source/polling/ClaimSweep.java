package io.outboxrelay.relay.source.polling;

import io.outboxrelay.relay.source.RowLayout;
import io.outboxrelay.relay.source.SqlDialect;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The claim of due rows where the relay chooses the heads ({@link
 * SqlDialect#claimsFromOrderedWindow}): read one window of unsettled ({@code PENDING} and {@code
 * PROCESSING}) rows in id order, without locks; choose the due rows and, with aggregate ordering,
 * only each aggregate's first unsettled row ({@link WindowHeads}); then lock the first of those, up
 * to the batch, with {@code FOR UPDATE SKIP LOCKED}, in a statement that checks again that each is
 * still due (and has no lower {@code DEAD} row where one blocks its aggregate). A chosen row that
 * another claim took meanwhile fails that check on the snapshot and is neither returned nor locked;
 * one another claim holds is skipped, and the next chosen row taken instead.
 *
 * <p><b>Sweeps.</b> Claims walk the unsettled rows in sweeps: a sweep starts at the {@link #floor}
 * and each claim reads the window after the previous one, remembering which aggregates had an
 * unsettled row (so their later rows are not heads); a claim that fills its batch leaves the window
 * where it is, for the next claim to look at again. A sweep ends when a window reaches the end of
 * the unsettled rows, and the next claim starts a new one. So one claim reads one window, however
 * many rows wait, and rows that cannot go now never stop the rows behind them.
 *
 * <p>Where a DEAD row holds its aggregate back, DEAD rows are in the window too, never due: so an
 * operator's requeue of one (back to {@code PENDING}) happens above the floor, where sweeps see it.
 *
 * <p><b>The floor</b> is an id below which no row is unsettled: the walk starts there, not at the
 * first row, so it does not read the index entries of the row versions published earlier, which
 * VACUUM cannot remove while something holds the xmin horizon back. A sweep's first row is the
 * lowest unsettled id at its snapshot; a row with a lower id can still appear, committed by a
 * transaction that was writing to the outbox table then. Those are the transactions holding the
 * table's {@code ROW EXCLUSIVE} lock once the window was read ({@link
 * SqlDialect#outboxWritersQuery}): an {@code INSERT} takes it before its id, so one that had not
 * taken it yet takes a higher id than the window saw. So the floor moves up to the first row only
 * at a later sweep that starts after every such transaction ended, to the lower of it and that
 * sweep's own first row; transactions elsewhere on the server (another table's, another database's)
 * do not hold it; a partition or child table written directly counts as the table. A holder without
 * a transaction id (it took the lock and has not written yet) cannot be waited for by id: no
 * candidate is taken then, and the next sweep tries again. The net for ids allocated out of commit
 * order in ways this does not show (a sequence with a cache per session, an id taken by {@code
 * nextval} before the {@code INSERT}) is the {@link FloorCheck}: once a minute it reads the lowest
 * unsettled id from the first row, off the claims' path, and the next sweep lowers the floor to it.
 * (Until then such a row is below the floor: it neither goes nor holds its aggregate back, as under
 * the once-a-minute sweep from the first row the claims made themselves before; that sweep read
 * every dead index entry under a held xmin, for seconds, while its batch waited.)
 *
 * <p>Not thread-safe: one per {@link OutboxStore}. Where the sweep goes on moves only when the
 * claim commits, and after a failed claim the next one starts a new sweep; the floor and its
 * candidate move within a claim, from reads that completed.
 */
final class ClaimSweep {

  /** A sweep remembering more aggregates than this ends early (memory). */
  private static final int MAX_BLOCKED = 200_000;

  /** What one claim took from its window. */
  record Taken(List<ClaimedEvent> events, int expired) {}

  private final OutboxStatements sql;
  private final RowLayout layout;
  private final SqlDialect dialect;
  private final boolean ordered;

  /** How many statuses the window reads, each with its own range scan. */
  private final int statuses;

  /** No row with an id at most this is unsettled. */
  private long floor;

  /** The floor to move to once the transactions of {@link #candidateWriters} ended; -1: none. */
  private long candidate = -1;

  /** The 64-bit ids of the transactions that were writing to the table after the candidate. */
  private List<Long> candidateWriters;

  /** The earliest time the next candidate's writers may be read ({@link #WRITERS_INTERVAL}). */
  private long nextWritersRead = System.nanoTime();

  /**
   * The shortest time between two reads of the table's writers by one sweep: a read of {@code
   * pg_locks} takes every partition of the server's lock table for a moment, and the floor need not
   * follow the rows more closely than this.
   */
  static final java.time.Duration WRITERS_INTERVAL = java.time.Duration.ofMillis(100);

  /** Rows with an id at most this were examined in the sweep under way; -1: none under way. */
  private long cursor = -1;

  /** Where the cursor goes when the claim commits. */
  private long nextCursor = -1;

  private final Set<String> blocked = new HashSet<>();

  /** The net under the floor, and what of it this sweep applied last. */
  private final FloorCheck check;

  private FloorCheck.Found applied;

  /** When this sweep may next read from the first row while the check is stale. */
  private long nextOwnRead = System.nanoTime();

  /**
   * @param deadBlocks whether DEAD rows are in the window (they hold their aggregate back)
   * @param check the net under the floor, shared by every worker's sweeps
   */
  ClaimSweep(
      OutboxStatements sql,
      RowLayout layout,
      boolean ordered,
      boolean deadBlocks,
      FloorCheck check) {
    this.sql = sql;
    this.check = check;
    this.statuses = ordered && deadBlocks ? 3 : 2;
    this.layout = layout;
    this.dialect = layout.dialect();
    this.ordered = ordered;
  }

  /** The floor, for tests. */
  long floor() {
    return floor;
  }

  /**
   * Reads the next window and locks what a claim may take of it, in the caller's transaction.
   *
   * @param window how many unsettled rows to read, at most
   * @param limit how many to take, at most
   */
  Taken take(Connection c, int window, int limit) throws SQLException {
    boolean starts = cursor < 0;
    boolean settled = false;
    long from = cursor;
    if (starts) {
      blocked.clear();
      lowerToCheck();
      settled = candidate >= 0 && running(c, candidateWriters) == 0;
      from = floor;
    }
    List<WindowHeads.Row> rows = new ArrayList<>();
    read(c, from, window, rows);
    if (starts) {
      moveFloor(c, settled, rows.isEmpty() ? Long.MAX_VALUE : rows.get(0).id());
    }
    WindowHeads.Choice choice = WindowHeads.pick(rows, ordered, blocked);
    Map<Long, Boolean> leased = new HashMap<>();
    rows.forEach(r -> leased.put(r.id(), r.leased()));
    List<ClaimedEvent> taken = new ArrayList<>();
    int expired = 0;
    if (!choice.ids().isEmpty()) {
      // Every head of the window is offered, the first `limit` free ones taken: a head another
      // worker holds is skipped and the next taken instead, and rows past the limit are not
      // locked (the lock stops once it has `limit` rows).
      try (PreparedStatement ps = c.prepareStatement(sql.takeChosen())) {
        int next = dialect.bindIds(c, ps, 1, choice.ids());
        ps.setInt(next, limit);
        try (ResultSet rs = ps.executeQuery()) {
          while (rs.next()) {
            ClaimedEvent e = ClaimedEvent.of(layout.readRow(rs));
            taken.add(e);
            if (leased.getOrDefault(e.event().id(), false)) {
              expired++;
            }
          }
        }
      }
    }
    if (taken.size() == limit) {
      // The window may offer more: look at it again, as if for the first time.
      blocked.removeAll(choice.added());
      nextCursor = starts ? -1 : from;
    } else if (rows.size() == window && blocked.size() < MAX_BLOCKED) {
      nextCursor = rows.get(rows.size() - 1).id();
    } else {
      nextCursor = -1; // the end of the unsettled rows: the next claim starts a new sweep
    }
    return new Taken(taken, expired);
  }

  /** The claim committed: the next one goes on where this one stopped. */
  void committed() {
    cursor = nextCursor;
  }

  /** The claim failed: the next one starts a new sweep. */
  void abandoned() {
    cursor = -1;
    blocked.clear();
  }

  /**
   * The lowest unsettled id, read from the first row (every index entry below the floor, dead ones
   * too), in the caller's transaction; for the {@link FloorCheck}.
   *
   * @return the id, or {@code Long.MAX_VALUE} when no row is unsettled
   */
  long lowestUnsettled(Connection c) throws SQLException {
    List<WindowHeads.Row> rows = new ArrayList<>();
    read(c, 0, 1, rows);
    return rows.isEmpty() ? Long.MAX_VALUE : rows.get(0).id();
  }

  /**
   * At a sweep's start: lowers the floor to a row the check found below it, once per check; while
   * the check is {@link FloorCheck#stale stale}, to the first row once a {@link FloorCheck#period}
   * (the floor rises again by the usual rule).
   */
  private void lowerToCheck() {
    FloorCheck.Found found = check.latest();
    if (found != null && found != applied) {
      applied = found;
      if (found.lowest() - 1 < floor) {
        floor = found.lowest() - 1;
      }
    }
    long now = System.nanoTime();
    if (check.stale(now) && now - nextOwnRead >= 0) {
      nextOwnRead = now + check.period().toNanos();
      floor = 0;
    }
  }

  /**
   * Moves the floor after a sweep's first window.
   *
   * @param c the claim's connection; the window was read on it
   * @param settled whether every writer of the candidate had ended before the window was read
   * @param first the lowest unsettled id the window saw, or {@code Long.MAX_VALUE}
   */
  private void moveFloor(Connection c, boolean settled, long first) throws SQLException {
    if (settled) {
      floor = Math.max(floor, Math.min(candidate, first - 1));
      candidate = -1;
    }
    long now = System.nanoTime();
    if (candidate < 0
        && first != Long.MAX_VALUE
        && first - 1 > floor
        && now - nextWritersRead >= 0) {
      nextWritersRead = now + WRITERS_INTERVAL.toNanos();
      List<Long> writers = writers(c);
      if (writers != null) {
        candidate = first - 1;
        candidateWriters = writers;
      }
    }
  }

  /**
   * The 64-bit ids of the transactions writing to the table now, or null when one of them has no
   * transaction id to wait for.
   */
  private List<Long> writers(Connection c) throws SQLException {
    List<Long> ids = new ArrayList<>();
    try (PreparedStatement ps = c.prepareStatement(dialect.outboxWritersQuery())) {
      ps.setString(1, sql.table());
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          java.sql.Array xids = rs.getArray(3);
          if (xids == null) {
            return null; // a holder without a transaction id: nothing to wait for by id
          }
          for (Object xid : (Object[]) xids.getArray()) {
            ids.add(fullXid(rs.getLong(1), Long.parseLong((String) xid)));
          }
        }
      }
    }
    return ids;
  }

  /**
   * A 32-bit transaction id as the 64-bit one (epoch and id) it stands for, from a 64-bit id within
   * 2^31 of it on either side.
   *
   * @param reference a 64-bit transaction id
   * @param xid a 32-bit transaction id, 0 to 2^32 - 1
   * @return the 64-bit id
   */
  static long fullXid(long reference, long xid) {
    int distance = (int) (xid - (reference & 0xFFFF_FFFFL));
    return reference + distance;
  }

  /** Reads the unsettled rows after {@code from}. */
  private void read(Connection c, long from, int window, List<WindowHeads.Row> into)
      throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(sql.unsettledWindow())) {
      int i = 1;
      for (int scan = 0; scan < statuses; scan++) {
        ps.setLong(i++, from);
        ps.setInt(i++, window);
      }
      ps.setInt(i, window);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          // Type and id as one key; the separator cannot occur in either.
          String aggregate = rs.getString(2) + '\u0000' + rs.getString(3);
          into.add(
              new WindowHeads.Row(rs.getLong(1), aggregate, rs.getBoolean(4), rs.getBoolean(5)));
        }
      }
    }
  }

  private int running(Connection c, List<Long> writers) throws SQLException {
    if (writers.isEmpty()) {
      return 0;
    }
    try (PreparedStatement ps = c.prepareStatement(dialect.writersRunningQuery())) {
      ps.setArray(1, c.createArrayOf("bigint", writers.toArray()));
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getInt(1);
      }
    }
  }
}
