package io.outboxrelay.relay.admin;

import com.fasterxml.jackson.core.JsonProcessingException;
import io.outboxrelay.relay.config.RelayConfig;
import io.outboxrelay.relay.config.RelayMode;
import io.outboxrelay.relay.config.SourceConfig;
import io.outboxrelay.relay.failure.SqlErrors;
import io.outboxrelay.relay.source.HandoffRecords;
import io.outboxrelay.relay.source.ModeOwnership;
import io.outboxrelay.relay.source.OutboxColumns;
import io.outboxrelay.relay.source.SqlDialect;
import io.outboxrelay.relay.source.cdc.KafkaPosition;
import io.outboxrelay.relay.source.cdc.leader.OffsetKey;
import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code outbox-relay position import}: takes over a Debezium MariaDB or MySQL connector's last
 * committed offset (see {@link ConnectOffsets}) as the relay's stored position, so that the relay
 * continues where the connector stopped: every event committed after that offset is published, and
 * what the connector published after it (after its last offset flush) is published a second time.
 *
 * <p>The offset is stored unchanged but for its key: Debezium keys it by the connector's name and
 * {@code topic.prefix}, the relay by {@code relay.name} for both. Every field is kept, {@code
 * event} and {@code row} included, so that a position inside a transaction resumes there. The relay
 * then starts without a snapshot: with a stored position and no schema history it reads the outbox
 * table's definition as it is now ({@code snapshot.mode=recovery}) and streams from the position.
 *
 * <p>Refused, with nothing changed: when the table lacks a mapped column, when the binlog no longer
 * holds the offset's file, when the offset is no position of this server ({@link
 * ImportedOffsetCheck}), when the connector was inside a snapshot or an incremental snapshot, when
 * the relay already has another stored position, when a CDC relay holds the table's lease or a
 * binlog reader of the relay's user is connected, and when the table is in polling mode. Not
 * thread-safe; one instance per command.
 */
public final class PositionImport {

  private static final Logger LOG = LoggerFactory.getLogger(PositionImport.class);

  private static final String NEEDS =
      "position import needs SELECT, INSERT, DELETE on the offsets table (CREATE when it does not"
          + " exist yet), SELECT on the outbox, lease and hand-off tables and BINLOG MONITOR (MySQL:"
          + " REPLICATION CLIENT) for source.user (see config/mysql/relay-grants.sql)";

  /** How long the import waits for Kafka with exactly-once delivery. */
  private static final java.time.Duration KAFKA_TIMEOUT = java.time.Duration.ofSeconds(15);

  private final RelayConfig config;
  private final SourceConfig source;
  private final SqlDialect dialect;
  private final PrintWriter out;
  private final Operator operator;

  /**
   * An import for the relay of this configuration.
   *
   * @param config the relay's configuration, in CDC mode on MariaDB or MySQL
   * @param out where the answer goes
   * @param operator who runs the command
   * @throws AdminException (exit 2) when the configuration is not CDC on MariaDB or MySQL
   */
  public PositionImport(RelayConfig config, PrintWriter out, Operator operator)
      throws AdminException {
    if (config.cdc() == null || !SqlDialect.of(config.source().flavor()).hasBinlog()) {
      throw AdminException.usage(
          "position import takes over a binlog position, for CDC mode on MariaDB or MySQL: this"
              + " configuration is "
              + config.mode().name().toLowerCase(Locale.ROOT)
              + " on "
              + config.source().flavor().name().toLowerCase(Locale.ROOT));
    }
    this.config = config;
    this.source = config.source();
    this.dialect = SqlDialect.of(source.flavor());
    this.out = out;
    this.operator = operator;
  }

  /**
   * Stores the connector's offset as the relay's position, or with {@code yes} false, prints what
   * it would store.
   *
   * @param found the connector's offset
   * @param yes whether to write it
   * @throws AdminException (exit 2) when it is refused, (exit 1) when the database fails; nothing
   *     is changed then
   */
  public void run(ConnectOffsets.Found found, boolean yes) throws AdminException {
    String problem = offsetProblem(found);
    if (problem != null) {
      throw AdminException.usage(problem + "; nothing was changed");
    }
    Connections.run(
        source,
        "importing the position of connector " + found.connector(),
        NEEDS,
        c -> {
          importOn(c, found, yes);
          return null;
        });
    out.flush();
  }

  /** What makes the offset unusable on its own, or null. */
  static String offsetProblem(ConnectOffsets.Found found) {
    Map<String, Object> o = found.offset();
    String where = "the offset of connector '" + found.connector() + "' in " + found.where();
    if (isTrue(o.get("snapshot")) && !isTrue(o.get("snapshot_completed"))) {
      return where
          + " was stored during its snapshot: let the connector finish the snapshot (or stream"
          + " for a while) and stop it again";
    }
    if (o.get("file") == null || o.get("file").toString().isEmpty() || o.get("pos") == null) {
      return where
          + " is not a binlog position (no file and pos: "
          + o.keySet()
          + "): the relay continues Debezium's MariaDB and MySQL connectors";
    }
    return ImportedOffsetCheck.fieldProblem(o, where);
  }

  private static boolean isTrue(Object v) {
    return v != null && "true".equalsIgnoreCase(v.toString());
  }

  private void importOn(Connection c, ConnectOffsets.Found found, boolean yes)
      throws SQLException, AdminException {
    checkTable(c);
    BinlogServer.Position at =
        new BinlogServer.Position(
            found.offset().get("file").toString(),
            number(found.offset().get("pos")),
            found.offset().get("gtids") == null ? null : found.offset().get("gtids").toString());
    List<BinlogServer.BinlogFile> files = BinlogServer.files(c);
    if (BinlogServer.indexOf(files, at.file()) < 0) {
      throw AdminException.usage(
          "binlog file "
              + at.file()
              + " of the connector's offset is no longer on "
              + source.describe()
              + (files.isEmpty() ? "" : " (the oldest is " + files.get(0).name() + ")")
              + ": the events after it cannot be read from the binlog; resume the connector"
              + " instead, or see docs/migrating-from-debezium.md; nothing was changed");
    }
    BinlogServer.Position current = BinlogServer.current(c, dialect);
    String unusable =
        ImportedOffsetCheck.serverProblem(
            c,
            dialect,
            at,
            files,
            current,
            "the offset of connector '" + found.connector() + "' in " + found.where());
    if (unusable != null) {
      throw AdminException.usage(unusable + "; nothing was changed");
    }
    Optional<OffsetsRow> stored = readStored(c, yes);
    String offsetJson = json(found.offset());
    if (stored.isPresent()) {
      if (sameOffset(stored.get().offset(), found.offset())) {
        c.rollback();
        out.println(
            "relay "
                + config.name()
                + " already has this position ("
                + at
                + ") in "
                + config.cdc().offsetsTable()
                + "; nothing to do");
        return;
      }
      throw AdminException.usage(
          "relay "
              + config.name()
              + " already has a stored position in "
              + config.cdc().offsetsTable()
              + " ("
              + stored.get().position()
              + "): a relay has published from this table, and replacing its position would skip"
              + " or repeat events; see outbox-relay position show, or delete that row (DELETE FROM "
              + config.cdc().offsetsTable()
              + " WHERE id = '"
              + stored.get().rowId()
              + "') if it is left over; nothing was changed");
    }
    List<BinlogServer.Reader> readers = BinlogServer.readers(c, source.user());
    plan(found, at, current, files);
    if (!yes) {
      c.rollback();
      if (!readers.isEmpty()) {
        out.println(
            "warning: "
                + running(readers)
                + " (a process that stopped a moment ago may still be listed: --yes checks again)");
      }
      out.println("dry run: nothing changed; add --yes to write the position");
      return;
    }
    Handoff.ensureOffsetsTable(c, SqlDialect.of(source.flavor()), config.cdc().offsetsTable());
    if (!readers.isEmpty()) {
      readers = BinlogServer.readersStillConnected(c, config.cdc().offsetsTable(), source.user());
      if (!readers.isEmpty()) {
        throw AdminException.usage(running(readers) + "; nothing was changed");
      }
    }
    c.rollback(); // no transaction stays open while Kafka is waited for
    boolean inKafka = commitToKafka(offsetJson, at);
    stored = readStored(c, true);
    if (stored.isPresent()) {
      throw AdminException.usage(
          "a position of relay "
              + config.name()
              + " was stored while the command ran: a relay is running; "
              + (inKafka
                  ? "the imported position was committed to progress topic "
                      + config.delivery().progressTopic()
                      + " already, the database was not changed: stop every relay of relay.name "
                      + config.name()
                      + " and run the command again"
                  : "nothing was changed"));
    }
    OffsetsRow.writeOffset(
        c, config.cdc().offsetsTable(), config.name(), Optional.empty(), offsetJson);
    c.commit();
    LOG.info(
        "operator {} imported the position {} of connector {} ({}) as the position of relay {} in"
            + " {} on {}",
        operator.name(),
        at,
        found.connector(),
        found.where(),
        config.name(),
        config.cdc().offsetsTable(),
        source.describe());
    out.println(
        "imported: relay "
            + config.name()
            + " starts at "
            + at
            + (skips(found) ? " (inside a transaction, as the connector would)" : "")
            + "; keep the connector stopped, and start the relay");
  }

  /**
   * With {@code delivery.guarantee=exactly-once}, commits the imported position to the progress
   * topic before the database stores it: a relay resumes at Kafka's position unless the database's
   * is the same or later in the binlog, so an import that moves the position back (to a connector's
   * older offset, or on purpose) would otherwise lose to the position Kafka holds. The commit
   * fences the relay's transactional id, which no running relay holds: the import refuses while one
   * leads.
   *
   * @return whether the position was committed to Kafka (false with at-least-once)
   * @throws AdminException (exit 1) when Kafka does not answer or refuses: nothing was changed
   */
  private boolean commitToKafka(String offsetJson, BinlogServer.Position at) throws AdminException {
    return commitToKafka(config, offsetJson, String.valueOf(at));
  }

  /**
   * With {@code delivery.guarantee=exactly-once}, commits an imported position to the relay's
   * progress topic ({@link #commitToKafka(String, BinlogServer.Position)}).
   *
   * @param config the relay's configuration
   * @param offsetJson the position
   * @param at the position, for the log
   * @return whether it was committed (false with at-least-once)
   * @throws AdminException (exit 1) when Kafka does not answer or refuses: nothing was committed
   */
  static boolean commitToKafka(RelayConfig config, String offsetJson, String at)
      throws AdminException {
    if (!config.delivery().exactlyOnce()) {
      return false;
    }
    try {
      new KafkaPosition(config, KAFKA_TIMEOUT).commit(offsetJson);
    } catch (KafkaPosition.Failure e) {
      throw AdminException.failure(
          "cannot commit the imported position to progress topic "
              + config.delivery().progressTopic()
              + " (delivery.guarantee=exactly-once): "
              + e.getMessage()
              + "; nothing was changed",
          e);
    }
    LOG.info(
        "committed the imported position {} of relay {} to progress topic {}",
        at,
        config.name(),
        config.delivery().progressTopic());
    return true;
  }

  /**
   * Refuses a table without the mapped columns, one in polling mode or served by a relay of another
   * name, and one whose lease a CDC relay holds.
   */
  private void checkTable(Connection c) throws SQLException, AdminException {
    String table = HandoffRecords.resourceOf(source);
    Map<String, OutboxColumns.Column> columns = OutboxColumns.read(c, source);
    if (columns.isEmpty()) {
      throw AdminException.usage(
          "table "
              + table
              + " does not exist or user '"
              + source.user()
              + "' may not read it: check source.database and source.table; nothing was changed");
    }
    List<String> missing =
        OutboxColumns.missingProblems(
            columns, source, RelayMode.CDC, table, "config/examples/debezium-outbox-schema.sql");
    if (!missing.isEmpty()) {
      throw AdminException.usage(
          missing.get(0)
              + (missing.size() > 1 ? " (and " + (missing.size() - 1) + " more)" : "")
              + "; nothing was changed");
    }
    ModeOwnership.TableState state =
        Handoff.readableState(c, config, columns.keySet(), "whether a relay serves " + table);
    refuse(ModeOwnership.cdcStartProblem(state));
    refuse(ModeOwnership.relayNameProblem(state, config.name(), config.cdc().leaderTable()));
    if (state.cdc().isPresent() && state.cdc().get().live()) {
      throw AdminException.usage(
          "CDC relay "
              + state.cdc().get().holder()
              + " holds the lease of "
              + table
              + ": it publishes from its own position; stop every relay of relay.name "
              + config.name()
              + " before importing a position; nothing was changed");
    }
  }

  private Optional<OffsetsRow> readStored(Connection c, boolean lock) throws SQLException {
    try {
      return OffsetsRow.read(c, config.cdc().offsetsTable(), config.name(), lock);
    } catch (SQLException e) {
      if (SqlErrors.isNoSuchTable(e)) {
        c.rollback();
        return Optional.empty(); // no relay ran yet; the import creates the table
      }
      throw e;
    }
  }

  private void plan(
      ConnectOffsets.Found found,
      BinlogServer.Position at,
      BinlogServer.Position current,
      List<BinlogServer.BinlogFile> files) {
    out.println(
        "connector '"
            + found.connector()
            + "'"
            + (found.server() == null ? "" : " (topic.prefix " + found.server() + ")")
            + " committed, in "
            + found.where()
            + ":");
    TextTable t = new TextTable("", "");
    t.row("  offset:", json(found.offset()));
    t.row("  binlog position:", at + (skips(found) ? skipText(found) : ""));
    long behind = BinlogServer.bytesBetween(files, at, current);
    t.row(
        "  server position:",
        current + (behind >= 0 ? " (" + behind + " bytes of binlog after the offset)" : ""));
    t.row(
        "relay " + config.name() + ":",
        "stores it in "
            + config.cdc().offsetsTable()
            + " under key "
            + OffsetKey.of(config.name())
            + "; it publishes every event after it, without a snapshot");
    if (config.delivery().exactlyOnce()) {
      KafkaPosition.Reading kafka = new KafkaPosition(config, KafkaCommitted.READ_TIMEOUT).read();
      t.row(
          "progress topic:",
          config.delivery().progressTopic()
              + " (delivery.guarantee=exactly-once) holds "
              + (!kafka.known()
                  ? "an unknown position (" + kafka.unknown() + ")"
                  : kafka.position().map(p -> "position " + p).orElse("no position")
                      + " of relay "
                      + config.name())
              + "; the import commits the offset there first, then stores it, so that the relay"
              + " resumes at it even when Kafka's position is later");
    }
    t.print(out);
    out.println(
        "Events the connector published after its last offset flush are published again"
            + " (consumers deduplicate on the id header).");
  }

  private static boolean skips(ConnectOffsets.Found found) {
    return number(found.offset().get("event")) > 0 || number(found.offset().get("row")) > 0;
  }

  private static String skipText(ConnectOffsets.Found found) {
    return ", then "
        + number(found.offset().get("event"))
        + " events and "
        + number(found.offset().get("row"))
        + " rows already published";
  }

  private static void refuse(Optional<String> problem) throws AdminException {
    if (problem.isPresent()) {
      throw AdminException.usage(problem.get() + "; nothing was changed");
    }
  }

  /**
   * Whether two offsets name the same point: file, pos, GTIDs and what to skip after it (binlog);
   * the LSNs and the transaction (PostgreSQL).
   */
  static boolean sameOffset(Map<String, Object> a, Map<String, Object> b) {
    for (String f : List.of("file", "gtids")) {
      if (!Objects.equals(text(a.get(f)), text(b.get(f)))) {
        return false;
      }
    }
    for (String f : List.of("pos", "event", "row", "lsn", "lsn_commit", "lsn_proc", "txId")) {
      if (number(a.get(f)) != number(b.get(f))) {
        return false;
      }
    }
    return true;
  }

  private static String text(Object v) {
    return v == null ? null : v.toString();
  }

  static long number(Object v) {
    if (v instanceof Number n) {
      return n.longValue();
    }
    try {
      return v == null ? 0 : Long.parseLong(v.toString());
    } catch (NumberFormatException e) {
      return 0;
    }
  }

  private static String json(Map<String, Object> offset) {
    try {
      return Json.MAPPER.writeValueAsString(offset);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e); // parsed from JSON, so it serialises
    }
  }

  private String running(List<BinlogServer.Reader> readers) {
    return BinlogServer.describeConnected(
        readers,
        source.user(),
        source.describe(),
        "stop the connector (and any relay of this user) first");
  }
}
