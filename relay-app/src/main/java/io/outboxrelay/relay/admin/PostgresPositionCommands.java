package io.outboxrelay.relay.admin;

import com.fasterxml.jackson.databind.JsonNode;
import io.outboxrelay.relay.config.RelayConfig;
import io.outboxrelay.relay.config.SourceConfig;
import io.outboxrelay.relay.source.cdc.PostgresReplication;
import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code outbox-relay position show | reset | import} for a CDC relay on PostgreSQL: its stored
 * position is Debezium's PostgreSQL offset (an LSN, {@code lsn}, with {@code ts_usec}) in {@code
 * cdc.offsets.table}, and its replication slot ({@link PostgresReplication#slotName}) holds the WAL
 * from its {@code confirmed_flush_lsn} on. PostgreSQL streams from the later of the two.
 *
 * <p>{@code reset --to-current} moves both to the server's current WAL position, under the rules of
 * the MariaDB reset: a dry run without {@code --yes}, printing what is skipped and how to find the
 * outbox rows in it; refused while a reader holds the slot (a relay runs), while a first start is
 * under way, with no slot (or one PostgreSQL invalidated: see the recovery in docs/postgresql.md),
 * and with {@code cdc.retention}. The stored row is replaced (locked, in one transaction) and the
 * slot advanced ({@code pg_replication_slot_advance}) in that transaction, before its commit:
 * should the commit fail, the slot is ahead of the stored position and the relay streams from the
 * slot's, which is the reset's.
 *
 * <p>{@code import} takes over a stopped Debezium PostgreSQL connector: its offset (from Kafka
 * Connect's offsets topic or an offsets file, {@link ConnectOffsets}) becomes the relay's stored
 * position, and its replication slot is copied as the relay's ({@code
 * pg_copy_logical_replication_slot}, which keeps the source slot's {@code restart_lsn} and {@code
 * confirmed_flush_lsn}), so that the WAL from the connector's offset on is still there for the
 * relay. The connector's slot is left as it is (drop it once the relay runs). Refused while the
 * connector's slot is active, when it is not a logical slot of this database, when it was
 * invalidated, when it confirmed past the offset (the relay would skip what lies between), when the
 * relay already has a position or a slot, and when the relay's publication does not exist.
 *
 * <p>Not thread-safe; one instance per command.
 */
public final class PostgresPositionCommands {

  private static final Logger LOG = LoggerFactory.getLogger(PostgresPositionCommands.class);

  private static final String NEEDS =
      "The position commands need SELECT, INSERT, DELETE on the offsets table and the REPLICATION"
          + " attribute for source.user (see config/postgresql/relay-grants.sql)";

  private final RelayConfig config;
  private final SourceConfig source;
  private final PrintWriter out;
  private final Operator operator;
  private final String slot;

  /**
   * Commands over the stored position of a CDC relay on PostgreSQL.
   *
   * @param config the relay's configuration, CDC on PostgreSQL
   * @param out where the answer goes
   * @param operator who runs the command
   */
  public PostgresPositionCommands(RelayConfig config, PrintWriter out, Operator operator) {
    this.config = config;
    this.source = config.source();
    this.out = out;
    this.operator = operator;
    this.slot = PostgresReplication.slotName(config.name());
  }

  /**
   * Prints the stored LSN, the slot's {@code confirmed_flush_lsn}, {@code wal_status} and reader,
   * the server's current position and the WAL the slot holds.
   *
   * @param json whether to print JSON
   * @throws AdminException when the database cannot be read
   */
  public void show(boolean json) throws AdminException {
    PostgresCdcStatus status =
        Connections.run(
            source,
            "reading the position of relay " + config.name(),
            NEEDS,
            c -> {
              PostgresCdcStatus read = PostgresCdcStatus.read(c, config, slot);
              c.rollback();
              return read;
            });
    status.print(out, config, json);
    out.flush();
  }

  /** The slot as {@code pg_replication_slots} shows it. */
  private record Slot(
      String name,
      String type,
      String plugin,
      String database,
      boolean active,
      Integer activePid,
      String confirmedFlush,
      String walStatus) {}

  private static Optional<Slot> slot(Connection c, String name) throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement(
            "SELECT slot_name, slot_type, plugin, database, active, active_pid,"
                + " confirmed_flush_lsn::text, wal_status FROM pg_replication_slots WHERE"
                + " slot_name = ?")) {
      ps.setString(1, name);
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next()) {
          return Optional.empty();
        }
        int pid = rs.getInt(6);
        Integer activePid = rs.wasNull() ? null : pid;
        return Optional.of(
            new Slot(
                rs.getString(1),
                rs.getString(2),
                rs.getString(3),
                rs.getString(4),
                rs.getBoolean(5),
                activePid,
                rs.getString(7),
                rs.getString(8)));
      }
    }
  }

  /**
   * Moves the stored position and the slot to the server's current WAL position, or with {@code
   * yes} false, prints what that would skip.
   *
   * @param yes whether to write it
   * @throws AdminException (exit 2) when refused; nothing is changed then
   */
  public void resetToCurrent(boolean yes) throws AdminException {
    if (yes && !config.cdc().retention().isZero()) {
      throw AdminException.usage(
          "a reset skips rows without publishing them, and cdc.retention would then delete them:"
              + " set cdc.retention=0ms for this command; nothing was changed");
    }
    Connections.run(
        source,
        "resetting the position of relay " + config.name(),
        NEEDS,
        c -> {
          reset(c, yes);
          return null;
        });
    out.flush();
  }

  private void reset(Connection c, boolean yes) throws SQLException, AdminException {
    c.setAutoCommit(false);
    Optional<OffsetsRow> stored = storedRow(c, yes);
    if (stored.isPresent() && stored.get().offset().containsKey(FIRST_START_MARKER)) {
      c.rollback();
      throw AdminException.usage(
          "a first start of relay "
              + config.name()
              + " is under way or did not finish: its next start begins it again (publishing the"
              + " rows in the table); start it instead of resetting; nothing was changed");
    }
    if (stored.isEmpty()) {
      c.rollback();
      out.println(
          "relay "
              + config.name()
              + " has no stored position in "
              + config.cdc().offsetsTable()
              + ": its first start takes a consistent snapshot and streams from its slot; nothing"
              + " to reset");
      return;
    }
    Optional<Slot> s = slot(c, slot);
    if (s.isEmpty() || "lost".equals(s.get().walStatus())) {
      c.rollback();
      throw AdminException.usage(
          "replication slot "
              + slot
              + (s.isEmpty() ? " does not exist" : " was invalidated by PostgreSQL")
              + ": a reset cannot keep it; "
              + recovery()
              + "; nothing was changed");
    }
    String current = currentLsn(c);
    String from = PostgresReplication.lsnText(number(stored.get().offset().get("lsn")));
    out.println((yes ? "resetting" : "a reset would move") + " relay " + config.name() + ":");
    out.println("  stored position:     " + from + " (" + config.cdc().offsetsTable() + ")");
    out.println(
        "  slot:                "
            + slot
            + ", confirmed_flush_lsn "
            + s.get().confirmedFlush()
            + (s.get().active() ? ", read by process " + s.get().activePid() : ", no reader"));
    out.println("  server position:     " + current);
    out.println(
        "skipped: every change from "
            + later(c, from, s.get().confirmedFlush())
            + " to "
            + current
            + " ("
            + bytesBetween(c, later(c, from, s.get().confirmedFlush()), current)
            + " bytes of WAL)");
    printSkippedRows(c, stored.get());
    if (s.get().active()) {
      String running =
          "replication slot "
              + slot
              + " is read by process "
              + s.get().activePid()
              + " (a relay of relay.name '"
              + config.name()
              + "' runs): stop it first";
      if (yes) {
        c.rollback();
        throw AdminException.usage(running + "; nothing was changed");
      }
      out.println(
          "warning: "
              + running
              + " (a relay that stopped a moment ago may still be listed: --yes checks again)");
    }
    if (!yes) {
      c.rollback();
      out.println("dry run: nothing changed; add --yes to write the new position");
      return;
    }
    Map<String, Object> offset = new LinkedHashMap<>();
    offset.put("lsn", PostgresReplication.lsnNumber(current));
    offset.put("ts_usec", PostgresReplication.databaseMicros(c));
    OffsetsRow.writeOffset(c, config.cdc().offsetsTable(), config.name(), stored, json(offset));
    advanceSlot(c, current);
    c.commit();
    LOG.info(
        "operator {} reset the position of relay {} in {} and replication slot {} on {} from {} to"
            + " {}",
        operator.name(),
        config.name(),
        config.cdc().offsetsTable(),
        slot,
        source.describe(),
        from,
        current);
    out.println(
        "reset: relay "
            + config.name()
            + " now starts at "
            + current
            + "; start it, and it publishes every event committed from there on");
  }

  /**
   * Takes over a stopped Debezium PostgreSQL connector's offset and slot.
   *
   * @param found the connector's offset
   * @param connectorSlot the connector's replication slot ({@code slot.name})
   * @param yes whether to write it
   * @throws AdminException (exit 2) when refused; nothing is changed then
   */
  public void importOffset(ConnectOffsets.Found found, String connectorSlot, boolean yes)
      throws AdminException {
    String problem = offsetProblem(found);
    if (problem != null) {
      throw AdminException.usage(problem + "; nothing was changed");
    }
    Connections.run(
        source,
        "importing the position of connector " + found.connector(),
        NEEDS,
        c -> {
          importOn(c, found, connectorSlot, yes);
          return null;
        });
    out.flush();
  }

  /** What makes a Debezium PostgreSQL offset unusable on its own, or null. */
  static String offsetProblem(ConnectOffsets.Found found) {
    Map<String, Object> o = found.offset();
    String where = "the offset of connector '" + found.connector() + "' in " + found.where();
    if (isTrue(o.get("snapshot")) && !isTrue(o.get("last_snapshot_record"))) {
      return where
          + " was stored during its snapshot: let the connector finish the snapshot (or stream"
          + " for a while) and stop it again";
    }
    if (!(o.get("lsn") instanceof Number)) {
      return where
          + " is not a PostgreSQL position (no numeric lsn: "
          + o.keySet()
          + "): the relay continues Debezium's PostgreSQL connector on this flavor";
    }
    return null;
  }

  private void importOn(Connection c, ConnectOffsets.Found found, String connectorSlot, boolean yes)
      throws SQLException, AdminException {
    c.setAutoCommit(false);
    String at = PostgresReplication.lsnText(number(found.offset().get("lsn")));
    String where = "the offset of connector '" + found.connector() + "' in " + found.where();
    Optional<OffsetsRow> stored = storedRow(c, false);
    if (stored.isPresent()) {
      c.rollback();
      throw AdminException.usage(
          "relay "
              + config.name()
              + " already has a stored position in "
              + config.cdc().offsetsTable()
              + ": a relay has published from this table, and replacing its position would skip"
              + " or repeat events; see outbox-relay position show; nothing was changed");
    }
    if (slot(c, slot).isPresent()) {
      c.rollback();
      throw AdminException.usage(
          "replication slot "
              + slot
              + " of relay.name '"
              + config.name()
              + "' exists already; the import makes it as a copy of the connector's slot. If the"
              + " relay never ran, drop it (SELECT pg_drop_replication_slot('"
              + slot
              + "')) and run the command again; nothing was changed");
    }
    Optional<Slot> from = slot(c, connectorSlot);
    String refusal = importRefusal(c, from, connectorSlot, at, where);
    if (refusal != null) {
      c.rollback();
      throw AdminException.usage(refusal + "; nothing was changed");
    }
    out.println(
        (yes ? "importing" : "an import would store")
            + " for relay "
            + config.name()
            + ": position "
            + at
            + " ("
            + where
            + "), and replication slot "
            + slot
            + " as a copy of "
            + connectorSlot
            + " (confirmed_flush_lsn "
            + from.get().confirmedFlush()
            + ")");
    out.println(
        "the relay publishes every event committed after "
            + at
            + "; what the connector published after its last committed offset is published again");
    if (config.delivery().exactlyOnce()) {
      out.println(
          "delivery.guarantee=exactly-once: the position is committed to progress topic "
              + config.delivery().progressTopic()
              + " first, then stored; nothing is stored when Kafka does not answer");
    }
    if (!yes) {
      c.rollback();
      out.println("dry run: nothing changed; add --yes to write the position and copy the slot");
      return;
    }
    ensureOffsetsTable(c);
    c.rollback();
    // PostgreSQL creates a slot only in a transaction without a transaction id: first the copy,
    // then the position; should the position not be stored, the copy is dropped again.
    try (PreparedStatement ps =
        c.prepareStatement("SELECT pg_copy_logical_replication_slot(?, ?, false, 'pgoutput')")) {
      ps.setString(1, connectorSlot);
      ps.setString(2, slot);
      ps.executeQuery().close();
    }
    c.commit();
    storeImported(c, found, at);
    LOG.info(
        "operator {} imported the position {} of connector {} ({}) and a copy of replication slot"
            + " {} as the position and slot of relay {} on {}",
        operator.name(),
        at,
        found.connector(),
        found.where(),
        connectorSlot,
        config.name(),
        source.describe());
    out.println(
        "imported: relay "
            + config.name()
            + " starts at "
            + at
            + " from replication slot "
            + slot
            + "; keep the connector stopped, start the relay, and drop the connector's slot once"
            + " the relay streams (SELECT pg_drop_replication_slot('"
            + connectorSlot
            + "'))");
  }

  /**
   * Stores the imported offset once the slot is copied: with exactly-once in the progress topic
   * first, then in the database; should either fail, the copied slot is dropped again.
   */
  private void storeImported(Connection c, ConnectOffsets.Found found, String at)
      throws SQLException, AdminException {
    try {
      Map<String, Object> offset = new LinkedHashMap<>(found.offset());
      offset.remove("snapshot");
      offset.remove("last_snapshot_record");
      // Exactly-once: Kafka's position wins at the next start unless the database's is the same,
      // so the imported one goes to the progress topic first (as on MariaDB).
      boolean inKafka = PositionImport.commitToKafka(config, json(offset), at);
      if (storedRow(c, true).isPresent()) {
        throw AdminException.usage(
            "a position of relay "
                + config.name()
                + " was stored while the command ran: a relay is running; "
                + (inKafka
                    ? "the imported position was committed to progress topic "
                        + config.delivery().progressTopic()
                        + " already, the database was not changed: stop every relay of"
                        + " relay.name "
                        + config.name()
                        + " and run the command again"
                    : "nothing was changed"));
      }
      OffsetsRow.writeOffset(
          c, config.cdc().offsetsTable(), config.name(), Optional.empty(), json(offset));
      c.commit();
    } catch (SQLException | AdminException | RuntimeException e) {
      c.rollback();
      dropCopiedSlot(c);
      throw e;
    }
  }

  /** Why the import of a connector's slot and offset is refused, or null. */
  private String importRefusal(
      Connection c, Optional<Slot> from, String connectorSlot, String at, String where)
      throws SQLException {
    String database = currentDatabase(c);
    String refusal = null;
    if (from.isEmpty()) {
      refusal =
          "the connector's replication slot "
              + connectorSlot
              + " does not exist (give its slot.name with --slot)";
    } else if (!"logical".equals(from.get().type()) || !database.equals(from.get().database())) {
      refusal =
          "replication slot "
              + connectorSlot
              + " is not a logical slot of database "
              + database
              + " ("
              + from.get().type()
              + ", "
              + from.get().database()
              + ")";
    } else if (from.get().active()) {
      refusal =
          "replication slot "
              + connectorSlot
              + " is read by process "
              + from.get().activePid()
              + ": stop the connector first";
    } else if ("lost".equals(from.get().walStatus())) {
      refusal =
          "replication slot "
              + connectorSlot
              + " was invalidated by PostgreSQL (wal_status=lost): the WAL after "
              + at
              + " is gone; start the relay without an import (its first start publishes the"
              + " table's rows)";
    } else if (after(c, from.get().confirmedFlush(), at)) {
      refusal =
          "replication slot "
              + connectorSlot
              + " confirmed "
              + from.get().confirmedFlush()
              + ", past "
              + where
              + " ("
              + at
              + "): the relay would skip what lies between; use the connector's latest offset";
    } else if (!publicationExists(c)) {
      refusal =
          "publication "
              + PostgresReplication.publicationName(config.name())
              + " does not exist. Create it ("
              + "CREATE PUBLICATION "
              + PostgresReplication.publicationName(config.name())
              + " FOR TABLE "
              + source.table()
              + " WITH (publish = 'insert')), let the connector stream past it (commit an offset),"
              + " stop the connector and run the command again: PostgreSQL decodes the WAL before"
              + " a publication was created without it";
    }
    return refusal;
  }

  private void dropCopiedSlot(Connection c) {
    try (PreparedStatement ps = c.prepareStatement("SELECT pg_drop_replication_slot(?)")) {
      ps.setString(1, slot);
      ps.executeQuery().close();
      c.commit();
    } catch (SQLException e) {
      LOG.warn(
          "cannot drop replication slot {} made by the import: {}; drop it by hand",
          slot,
          Connections.oneLine(e));
    }
  }

  private static String json(Map<String, Object> offset) {
    try {
      return Json.MAPPER.writeValueAsString(offset);
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new IllegalStateException(e); // numbers and texts always serialise
    }
  }

  /** Creates the offsets table where it is missing (a relay that never ran), and commits. */
  private void ensureOffsetsTable(Connection c) throws SQLException, AdminException {
    String table = config.cdc().offsetsTable();
    try (PreparedStatement ps = c.prepareStatement("SELECT to_regclass(?) IS NOT NULL")) {
      ps.setString(1, table);
      try (ResultSet rs = ps.executeQuery()) {
        if (rs.next() && rs.getBoolean(1)) {
          return;
        }
      }
    }
    try (java.sql.Statement st = c.createStatement()) {
      st.execute(io.outboxrelay.relay.source.cdc.OffsetsDdl.create(table));
      c.commit();
    } catch (SQLException e) {
      c.rollback();
      throw AdminException.usage(
          "cannot create "
              + table
              + ", where the CDC relay stores its position: "
              + Connections.oneLine(e)
              + ". Create it with config/postgresql/relay-storage.sql, or grant the relay's user"
              + " CREATE on the schema; nothing was changed",
          e);
    }
  }

  /** The key of the first start's marker in a stored offset. */
  private static final String FIRST_START_MARKER = "outbox_relay_first_start";

  private Optional<OffsetsRow> storedRow(Connection c, boolean lock) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("SELECT to_regclass(?) IS NOT NULL")) {
      ps.setString(1, config.cdc().offsetsTable());
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next() || !rs.getBoolean(1)) {
          return Optional.empty();
        }
      }
    }
    return OffsetsRow.read(c, config.cdc().offsetsTable(), config.name(), lock);
  }

  private boolean publicationExists(Connection c) throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement("SELECT 1 FROM pg_publication WHERE pubname = ?")) {
      ps.setString(1, PostgresReplication.publicationName(config.name()));
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next();
      }
    }
  }

  private void printSkippedRows(Connection c, OffsetsRow stored) throws SQLException {
    long micros = number(stored.offset().get("ts_usec"));
    Instant since =
        micros > 0
            ? Instant.ofEpochSecond(micros / 1_000_000, (micros % 1_000_000) * 1000)
            : stored.committedAt();
    long maxId;
    try (PreparedStatement ps =
            c.prepareStatement(
                "SELECT MAX(" + source.sequenceColumn() + ") FROM " + source.table());
        ResultSet rs = ps.executeQuery()) {
      maxId = rs.next() ? rs.getLong(1) : 0;
    }
    PositionCommands.printRowsMaybeSkipped(out, source, since, maxId, "");
  }

  private void advanceSlot(Connection c, String lsn) throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement("SELECT pg_replication_slot_advance(?, ?::pg_lsn)")) {
      ps.setString(1, slot);
      ps.setString(2, lsn);
      ps.executeQuery().close();
    }
  }

  private String recovery() {
    return "stop the relay, drop the slot if it is still there (SELECT pg_drop_replication_slot('"
        + slot
        + "')) and delete the row of relay.name '"
        + config.name()
        + "' from "
        + config.cdc().offsetsTable()
        + ": the next start is a first start, which publishes every row still in the table"
        + " (docs/postgresql.md)";
  }

  private static String currentDatabase(Connection c) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("SELECT current_database()");
        ResultSet rs = ps.executeQuery()) {
      rs.next();
      return rs.getString(1);
    }
  }

  private static String currentLsn(Connection c) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("SELECT pg_current_wal_lsn()::text");
        ResultSet rs = ps.executeQuery()) {
      rs.next();
      return rs.getString(1);
    }
  }

  /** Whether LSN {@code a} is past {@code b}. */
  private static boolean after(Connection c, String a, String b) throws SQLException {
    if (a == null) {
      return false;
    }
    try (PreparedStatement ps = c.prepareStatement("SELECT ?::pg_lsn > ?::pg_lsn")) {
      ps.setString(1, a);
      ps.setString(2, b);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getBoolean(1);
      }
    }
  }

  private static String later(Connection c, String a, String b) throws SQLException {
    return b != null && after(c, b, a) ? b : a;
  }

  private static long bytesBetween(Connection c, String from, String to) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("SELECT (?::pg_lsn - ?::pg_lsn)::bigint")) {
      ps.setString(1, to);
      ps.setString(2, from);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return Math.max(0, rs.getLong(1));
      }
    }
  }

  private static long number(Object v) {
    if (v instanceof Number n) {
      return n.longValue();
    }
    if (v instanceof JsonNode n) {
      return n.asLong();
    }
    try {
      return v == null ? 0 : Long.parseLong(v.toString());
    } catch (NumberFormatException e) {
      return 0;
    }
  }

  private static boolean isTrue(Object v) {
    return v != null && "true".equalsIgnoreCase(v.toString());
  }
}
