package io.outboxrelay.relay.source;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.outboxrelay.relay.config.RelayMode;
import io.outboxrelay.relay.config.SourceConfig;
import io.outboxrelay.relay.failure.SqlErrors;
import io.outboxrelay.relay.source.HandoffRecords.Handoff;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * Which mode serves an outbox table, and what may start or be handed over: a CDC relay and a
 * polling relay on one table publish every event twice, and a hand-off in a direction the table is
 * not in publishes or marks rows a second time. The answer comes first from the table's hand-off
 * record ({@link HandoffRecords}); for a table never handed over, from the traces each mode leaves
 * on this table (never on another): a CDC relay's leadership row, and polling's bookkeeping (rows
 * leased now, the newest {@code published_at}). Every time is the database's.
 *
 * <p>{@link #read} gathers those facts in a few index reads; the decisions are pure functions of
 * them. Stateless and thread-safe.
 */
public final class ModeOwnership {

  /** How recent polling's newest publish must be to count as a polling relay at work. */
  static final long RECENT_MICROS = 120_000_000L;

  /** How many of polling's marked rows {@link #read} counts at most. */
  static final int MARKS_COUNTED = 1000;

  /**
   * What the database shows of the table's modes.
   *
   * @param table the outbox table, {@code database.table}
   * @param handoff the latest hand-off, if any
   * @param cdc the CDC leadership row of the table, if a CDC relay ever ran on it
   * @param leasedNow rows a polling worker holds a live lease on (0 without polling's columns)
   * @param publishedAgeMicros how long ago polling marked its newest row {@code PUBLISHED}, or
   *     {@code null} when it never did (or the table has no polling columns)
   * @param unreadable what could not be read (a missing grant), or {@code null}
   * @param marked the rows polling's bookkeeping marked, by status ({@code PROCESSING}, {@code
   *     PUBLISHED}, {@code DEAD}, {@code SKIPPED}; CDC leaves every row {@code PENDING}), counted
   *     up to {@link #MARKS_COUNTED} in all; empty when polling never served the table
   * @param retried whether a {@code PENDING} row carries an attempt: polling claimed it and gave it
   *     back for a retry (read only when {@code marked} is empty)
   * @param storedPosition whether the CDC relay starting has a stored position (set by the CDC
   *     start check, {@link #withStoredPosition}; false elsewhere)
   */
  public record TableState(
      String table,
      Optional<Handoff> handoff,
      Optional<CdcLease> cdc,
      long leasedNow,
      Long publishedAgeMicros,
      String unreadable,
      Map<String, Long> marked,
      boolean retried,
      boolean storedPosition) {

    /** Freezes the counts. */
    public TableState {
      marked = Collections.unmodifiableMap(new TreeMap<>(marked));
    }

    /**
     * The same state, knowing whether the CDC relay starting has a stored position.
     *
     * @param stored whether it has one
     * @return the state
     */
    public TableState withStoredPosition(boolean stored) {
      return new TableState(
          table, handoff, cdc, leasedNow, publishedAgeMicros, unreadable, marked, retried, stored);
    }

    /** Whether polling published after the moment {@code ageMicros} ago. */
    boolean pollingPublishedWithin(long ageMicros) {
      return leasedNow > 0 || (publishedAgeMicros != null && publishedAgeMicros < ageMicros);
    }

    /** Whether a polling relay ever served the table: it marked or claimed a row. */
    boolean pollingServed() {
      return leasedNow > 0 || publishedAgeMicros != null || !marked.isEmpty() || retried;
    }

    /** What polling is seen doing, for messages. */
    String pollingTraces() {
      if (leasedNow > 0) {
        return leasedNow + (leasedNow == 1 ? " event is" : " events are") + " leased to a worker";
      }
      return "its newest event was marked PUBLISHED " + publishedAgeMicros / 1_000_000 + " s ago";
    }

    /** What polling left on the table, for messages: {@code 5 rows PUBLISHED, 1 DEAD}. */
    String pollingMarks() {
      List<String> parts = new ArrayList<>();
      long total = 0;
      for (Map.Entry<String, Long> e : marked.entrySet()) {
        parts.add(e.getValue() + " " + e.getKey());
        total += e.getValue();
      }
      String rows =
          parts.isEmpty()
              ? "PENDING rows polling claimed and gave back for a retry"
              : (total >= MARKS_COUNTED ? "at least " : "")
                  + "rows marked by polling: "
                  + String.join(", ", parts);
      return publishedAgeMicros == null
          ? rows
          : rows + "; the newest was marked PUBLISHED " + publishedAgeMicros / 1_000_000 + " s ago";
    }
  }

  /**
   * A CDC relay's leadership row on the table.
   *
   * @param holder the process that holds or last held it
   * @param relayName its {@code relay.name}
   * @param live whether it has not run out
   * @param renewedAgeMicros how long ago it was last renewed (or given up)
   */
  public record CdcLease(String holder, String relayName, boolean live, long renewedAgeMicros) {}

  private static final ObjectMapper MAPPER = new ObjectMapper();

  private ModeOwnership() {}

  /**
   * Reads the table's state. What cannot be read for a missing grant is named in {@link
   * TableState#unreadable()}; a missing table counts as no record.
   *
   * @param c a connection as the relay's user; its transaction is rolled back
   * @param source where the outbox table is
   * @param leaseTable the CDC leases table
   * @param columns the outbox table's columns (lower case)
   * @return the state
   * @throws SQLException when the database fails otherwise
   */
  public static TableState read(
      Connection c, SourceConfig source, String leaseTable, Set<String> columns)
      throws SQLException {
    String table = HandoffRecords.resourceOf(source);
    SqlDialect dialect = SqlDialect.of(source.flavor());
    String outbox = dialect.qualifiedTable(source);
    String unreadable = null;
    Optional<Handoff> handoff = Optional.empty();
    Optional<CdcLease> cdc = Optional.empty();
    try {
      handoff = HandoffRecords.latest(c, source);
    } catch (SQLException e) {
      unreadable = deniedOrThrow(e, HandoffRecords.table(source));
      dialect.afterFailedStatement(c);
    }
    try {
      cdc = lease(c, source, leaseTable);
    } catch (SQLException e) {
      unreadable = deniedOrThrow(e, dialect.relayTable(source, leaseTable));
      dialect.afterFailedStatement(c);
    }
    long leasedNow = 0;
    Long publishedAge = null;
    if (columns.containsAll(List.of("status", "processing_until", "published_at"))) {
      try (PreparedStatement ps =
              c.prepareStatement(
                  "SELECT (SELECT COUNT(*) FROM (SELECT 1 FROM "
                      + outbox
                      + " WHERE status = 'PROCESSING' AND processing_until > "
                      + dialect.now()
                      + " LIMIT 1000) leased), (SELECT "
                      + dialect.microsSince("published_at")
                      + " FROM "
                      + outbox
                      + " WHERE status = 'PUBLISHED' ORDER BY "
                      + source.sequenceColumn()
                      + " DESC LIMIT 1)");
          ResultSet rs = ps.executeQuery()) {
        rs.next();
        leasedNow = rs.getLong(1);
        long age = rs.getLong(2);
        publishedAge = rs.wasNull() ? null : Math.max(0, age);
      }
    }
    Map<String, Long> marked = new TreeMap<>();
    boolean retried = false;
    if (columns.contains("status")) {
      // (status, sequence) index: the rows of other statuses than PENDING, a bounded read even on
      // a CDC table that keeps millions of PENDING rows.
      try (PreparedStatement ps =
              c.prepareStatement(
                  "SELECT status, COUNT(*) FROM (SELECT status FROM "
                      + outbox
                      + " WHERE status <> 'PENDING' LIMIT "
                      + MARKS_COUNTED
                      + ") m GROUP BY status");
          ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          marked.put(rs.getString(1).trim(), rs.getLong(2));
        }
      }
      if (marked.isEmpty() && columns.contains("attempts")) {
        // Reads the PENDING rows: only on a table polling never marked a row of.
        try (PreparedStatement ps =
                c.prepareStatement(
                    "SELECT 1 FROM "
                        + outbox
                        + " WHERE status = 'PENDING' AND attempts > 0 LIMIT 1");
            ResultSet rs = ps.executeQuery()) {
          retried = rs.next();
        }
      }
    }
    c.rollback();
    return new TableState(
        table, handoff, cdc, leasedNow, publishedAge, unreadable, marked, retried, false);
  }

  /**
   * Whether a CDC relay of this name stored a position in the offsets table (a missing table counts
   * as none).
   *
   * @param c a connection to the source database; its transaction is rolled back
   * @param source where the relay's tables are
   * @param offsetsTable {@code cdc.offsets.table}
   * @param relayName {@code relay.name}
   * @return whether it has one
   * @throws SQLException when the table cannot be read (other than missing)
   */
  public static boolean storedPosition(
      Connection c, SourceConfig source, String offsetsTable, String relayName)
      throws SQLException {
    // Debezium's key: ["<relay.name>",{"server":"<relay.name>"}]; a row per relay of the database.
    SqlDialect dialect = SqlDialect.of(source.flavor());
    try (PreparedStatement ps =
            c.prepareStatement(
                "SELECT offset_key FROM " + dialect.relayTable(source, offsetsTable));
        ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        if (keyOf(rs.getString(1), relayName)) {
          return true;
        }
      }
      return false;
    } catch (SQLException e) {
      if (SqlErrors.isMissingTable(e)) {
        return false;
      }
      throw e;
    } finally {
      c.rollback();
    }
  }

  /** Whether an {@code offset_key} is the engine's key of {@code relayName}. */
  static boolean keyOf(String key, String relayName) {
    if (key == null) {
      return false;
    }
    try {
      JsonNode k = MAPPER.readTree(key);
      return k != null && k.isArray() && k.size() >= 1 && relayName.equals(k.get(0).asText());
    } catch (JsonProcessingException e) {
      return false; // not a key Debezium wrote
    }
  }

  private static Optional<CdcLease> lease(Connection c, SourceConfig source, String leaseTable)
      throws SQLException {
    SqlDialect dialect = SqlDialect.of(source.flavor());
    try (PreparedStatement ps =
        c.prepareStatement(
            "SELECT holder, relay_name, expires_at > "
                + dialect.now()
                + ", "
                + dialect.microsSince("renewed_at")
                + " FROM "
                + dialect.relayTable(source, leaseTable)
                + " WHERE resource = ?")) {
      ps.setString(1, HandoffRecords.resourceOf(source));
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next()) {
          return Optional.empty();
        }
        return Optional.of(
            new CdcLease(
                rs.getString(1), rs.getString(2), rs.getBoolean(3), Math.max(0, rs.getLong(4))));
      }
    } catch (SQLException e) {
      if (SqlErrors.isMissingTable(e)) {
        dialect.afterFailedStatement(c);
        return Optional.empty();
      }
      throw e;
    }
  }

  private static String deniedOrThrow(SQLException e, String table) throws SQLException {
    if (SqlErrors.isTableDenied(e)) {
      return table;
    }
    throw e;
  }

  /**
   * Why a CDC relay must not start on the table, or empty. A CDC relay starts at a binlog position
   * and never reads the rows before it, so it may start only where no event is left that only
   * polling would publish: a table the latest hand-off gave to CDC (and no polling relay publishes
   * from since), a table CDC served before (its leadership row, or a stored position of the relay
   * starting) that polling has not published from since, or a table polling never served (no row
   * marked or claimed by polling: a fresh table, or {@code PENDING} rows no relay ever polled). It
   * fails closed otherwise, however long ago polling last published: the {@code PENDING} rows it
   * left would never be published.
   *
   * @param s the table's state
   * @return one line saying what to do, or empty
   */
  public static Optional<String> cdcStartProblem(TableState s) {
    Optional<Handoff> h = s.handoff();
    if (h.isPresent() && h.get().to() == RelayMode.POLLING) {
      if (!h.get().finished()) {
        return Optional.of(
            s.table()
                + " is being "
                + h.get().describe()
                + ": run 'outbox-relay handoff --to polling' again to finish it and start the"
                + " polling relays, or hand it back with 'outbox-relay handoff --to cdc'");
      }
      return Optional.of(
          s.table()
              + " was "
              + h.get().describe()
              + ": a CDC relay would publish again what the polling relays publish; to move it"
              + " back to CDC, stop the polling relays and run 'outbox-relay handoff --to cdc'");
    }
    boolean cdcRan = s.cdc().isPresent() || s.storedPosition();
    // Polling at work: since the hand-off; without one, lately, or since CDC last served the table.
    long since =
        h.map(Handoff::ageMicros)
            .orElse(Math.max(RECENT_MICROS, s.cdc().map(CdcLease::renewedAgeMicros).orElse(0L)));
    if (s.pollingPublishedWithin(since)) {
      return Optional.of(
          "a polling relay publishes from "
              + s.table()
              + " ("
              + s.pollingTraces()
              + (h.isPresent() ? ", after it was " + h.get().describe() : "")
              + "): a CDC relay would publish every event a second time; stop the polling"
              + " relays, then move the table with 'outbox-relay handoff --to cdc'");
    }
    if (h.isEmpty() && !cdcRan && s.pollingServed()) {
      return Optional.of(
          "polling served "
              + s.table()
              + " ("
              + s.pollingMarks()
              + ") and it was never handed to CDC: a CDC relay starts at the current binlog"
              + " position, so the events polling has not published yet would never be published;"
              + " stop the polling relays, then run 'outbox-relay handoff --to cdc'");
    }
    return Optional.empty();
  }

  /**
   * Why a CDC relay of this {@code relay.name} must not start on the table, or empty: the table's
   * leadership row names a relay of another name. Leadership, the position and the schema history
   * are keyed by {@code relay.name}: a relay of another name that took over would continue from its
   * own position, or from the current binlog position when it has none, and the events committed in
   * between would never be published.
   *
   * @param s the table's state
   * @param relayName this relay's name
   * @param leaseTable the leases table, for the message
   * @return one line saying what to do, or empty
   */
  public static Optional<String> relayNameProblem(
      TableState s, String relayName, String leaseTable) {
    Optional<CdcLease> cdc = s.cdc();
    if (cdc.isEmpty() || cdc.get().relayName().equals(relayName)) {
      return Optional.empty();
    }
    return Optional.of(
        s.table()
            + " is served by relay.name '"
            + cdc.get().relayName()
            + "' ("
            + (cdc.get().live() ? "its leader " : "its last leader ")
            + cdc.get().holder()
            + "), and this relay is '"
            + relayName
            + "': a relay of another name continues from its own position, so events committed"
            + " in between would never be published. Give this relay relay.name="
            + cdc.get().relayName()
            + " (every relay of one table, leader and standbys, shares one relay.name); to move"
            + " the table to '"
            + relayName
            + "' on purpose, stop every relay of it and delete its lease row (DELETE FROM "
            + leaseTable
            + " WHERE resource = '"
            + s.table()
            + "'): '"
            + relayName
            + "' then starts from its own stored position, or from the current binlog position");
  }

  /**
   * What polling's start and a hand-off to CDC both refuse first: a table handed to CDC, or one
   * whose hand-off is unfinished.
   *
   * @param s the table's state
   * @param handedToCdc the rest of the first refusal after {@code <table> was <hand-off>}, with
   *     {@code %s} for the CDC relay's name
   * @param afterFinishing the end of the second refusal, after "run ... again to finish it"
   * @return the refusal, or empty
   */
  private static Optional<String> handedToCdcOrUnfinished(
      TableState s, String handedToCdc, String afterFinishing) {
    Optional<Handoff> h = s.handoff();
    if (h.isPresent() && h.get().to() == RelayMode.CDC) {
      return Optional.of(
          s.table()
              + " was "
              + h.get().describe()
              + handedToCdc.replace("%s", h.get().relayName()));
    }
    if (h.isPresent() && !h.get().finished()) {
      return Optional.of(
          s.table()
              + " is being "
              + h.get().describe()
              + ": run 'outbox-relay handoff --to polling' again to finish it"
              + afterFinishing);
    }
    return Optional.empty();
  }

  /**
   * Why a polling relay must not start on the table, or empty: the table was handed to CDC, a CDC
   * relay streams it, or a CDC relay served it and it was never handed to polling (the rows CDC
   * published are still {@code PENDING}).
   *
   * @param s the table's state
   * @return one line saying what to do, or empty
   */
  public static Optional<String> pollingStartProblem(TableState s) {
    Optional<String> handed =
        handedToCdcOrUnfinished(
            s,
            " (CDC relay %s): polling relays would publish again what CDC publishes; to move it"
                + " back, stop the CDC relays and run 'outbox-relay handoff --to polling'",
            ", then start the polling relays");
    if (handed.isPresent()) {
      return handed;
    }
    Optional<Handoff> h = s.handoff();
    Optional<CdcLease> cdc = s.cdc();
    if (cdc.isPresent() && cdc.get().live()) {
      return Optional.of(
          "CDC relay "
              + cdc.get().relayName()
              + " ("
              + cdc.get().holder()
              + ") holds the lease of "
              + s.table()
              + " and streams it: polling relays would publish every event a second time; stop"
              + " the CDC relays, then move the table with 'outbox-relay handoff --to polling'");
    }
    if (cdc.isPresent() && cdcServedSinceHandoff(s)) {
      return Optional.of(
          "CDC relay "
              + cdc.get().relayName()
              + " served "
              + s.table()
              + " until "
              + cdc.get().renewedAgeMicros() / 1_000_000
              + " s ago"
              + h.map(x -> ", after it was " + x.describe())
                  .orElse(", and it was never handed to polling")
              + ": the rows CDC published are still PENDING and polling would publish them"
              + " again; run 'outbox-relay handoff --to polling' first");
    }
    return Optional.empty();
  }

  /**
   * Why {@code handoff --to cdc} must not run, or empty: the table is not polling's (it was handed
   * to CDC, or CDC served it since it was last handed to polling), so its {@code PENDING} rows
   * include what CDC published.
   *
   * @param s the table's state
   * @param relayName the CDC relay's name
   * @return one line, ending in "nothing was changed", or empty
   */
  public static Optional<String> handoffToCdcProblem(TableState s, String relayName) {
    Optional<String> handed =
        handedToCdcOrUnfinished(
            s,
            " already (CDC relay %s): a second hand-off would insert again rows CDC has published;"
                + " nothing was changed",
            " first; nothing was changed");
    if (handed.isPresent()) {
      return handed;
    }
    Optional<Handoff> h = s.handoff();
    if (s.cdc().isPresent() && cdcServedSinceHandoff(s)) {
      return Optional.of(
          "CDC relay "
              + s.cdc().get().relayName()
              + " has served "
              + s.table()
              + " since "
              + h.map(x -> "it was " + x.describe()).orElse("polling last published from it")
              + " (lease renewed "
              + s.cdc().get().renewedAgeMicros() / 1_000_000
              + " s ago): its rows are still PENDING though CDC published them, and a hand-off"
              + " to CDC would publish them again; the table is CDC's already (start relay "
              + relayName
              + ", or hand it to polling first); nothing was changed");
    }
    return Optional.empty();
  }

  /**
   * Why {@code handoff --to polling} must not run, or empty: the table is polling's already (it was
   * handed to polling and CDC has not served it since, or polling has published from it since CDC
   * last did), so marking rows by the CDC position would mark rows nobody published.
   *
   * @param s the table's state
   * @return one line, ending in "nothing was changed", or empty
   */
  public static Optional<String> handoffToPollingProblem(TableState s) {
    Optional<Handoff> h = s.handoff();
    Optional<CdcLease> cdc = s.cdc();
    if (h.isPresent() && h.get().to() == RelayMode.POLLING) {
      if (!h.get().finished() || (cdc.isPresent() && cdcServedSinceHandoff(s))) {
        return Optional.empty(); // finish the interrupted one; or CDC took the table back since
      }
      return Optional.of(
          s.table()
              + " was "
              + h.get().describe()
              + " already: marking rows by the CDC position again would mark rows polling has"
              + " not published; nothing was changed");
    }
    if (h.isEmpty()
        && s.publishedAgeMicros() != null
        && (cdc.isEmpty() || s.publishedAgeMicros() < cdc.get().renewedAgeMicros())) {
      return Optional.of(
          "polling relays have published from "
              + s.table()
              + (cdc.isEmpty()
                  ? " and no CDC relay ever served it"
                  : " since CDC relay " + cdc.get().relayName() + " last served it")
              + " ("
              + s.pollingTraces()
              + "): the table is polling's already, and marking rows by the CDC position would"
              + " mark rows polling has not published; nothing was changed");
    }
    return Optional.empty();
  }

  /**
   * Whether a CDC relay renewed its leadership after the table was last handed over, or, for a
   * table never handed over, after polling last published from it.
   */
  private static boolean cdcServedSinceHandoff(TableState s) {
    long renewed = s.cdc().orElseThrow().renewedAgeMicros();
    if (s.handoff().isPresent()) {
      return renewed < s.handoff().get().ageMicros();
    }
    return s.publishedAgeMicros() == null || renewed < s.publishedAgeMicros();
  }
}
