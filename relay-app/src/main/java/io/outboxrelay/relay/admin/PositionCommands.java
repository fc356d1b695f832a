package io.outboxrelay.relay.admin;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.outboxrelay.relay.config.RelayConfig;
import io.outboxrelay.relay.config.SourceConfig;
import io.outboxrelay.relay.source.SqlDialect;
import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code outbox-relay position show | reset}: a CDC relay's stored binlog position.
 *
 * <p>The reset is for the binlog purged while the relay was down, which the relay refuses to skip
 * on its own. It writes the server's current position as Debezium's MariaDB connector stores one
 * (see {@link OffsetsRow}), replacing the relay's row in one transaction, and only while no binlog
 * reader of the relay's user is connected (once readers that are gone have been made to let go, see
 * {@link BinlogServer#wakeReaders}). Writing the position, rather than deleting the row, pins the
 * point: every event committed after the reset is published, even those committed before the relay
 * is started again (a relay without a stored position starts from wherever the binlog is when it
 * starts). What the reset skips is printed first: the binlog range, and a query for the outbox rows
 * that may have been committed in it.
 *
 * <p>Not thread-safe; one instance per command.
 */
public final class PositionCommands {

  private static final Logger LOG = LoggerFactory.getLogger(PositionCommands.class);

  /**
   * How much earlier than the stored position's time the query for skipped rows starts: {@code
   * created_at} is when a row was inserted, and a transaction open at that time commits later.
   */
  static final Duration OPEN_TRANSACTION_MARGIN = Duration.ofMinutes(1);

  private static final String NEEDS =
      "The position commands need SELECT, INSERT, DELETE on the offsets table and BINLOG MONITOR"
          + " (MySQL: REPLICATION CLIENT) for source.user (see config/mysql/relay-grants.sql)";

  private final RelayConfig config;
  private final SourceConfig source;
  private final PrintWriter out;
  private final Operator operator;

  /**
   * Commands over the relay's stored position.
   *
   * @param config the relay's configuration, in CDC mode
   * @param out where the answer goes
   * @param operator who runs the command
   * @throws AdminException (exit 2) when the configuration is not in CDC mode
   */
  public PositionCommands(RelayConfig config, PrintWriter out, Operator operator)
      throws AdminException {
    if (config.cdc() == null) {
      throw AdminException.usage(
          "the position commands are for CDC mode, and this configuration is in "
              + config.mode().name().toLowerCase(java.util.Locale.ROOT)
              + " mode: add --mode cdc, or use outbox-relay status");
    }
    this.config = config;
    this.source = config.source();
    this.out = out;
    this.operator = operator;
  }

  /**
   * Prints the stored position, the server's, and how far apart they are.
   *
   * @param json whether to print JSON
   * @throws AdminException when the database cannot be read
   */
  public void show(boolean json) throws AdminException {
    CdcState state =
        Connections.run(
            source,
            "reading the position of relay " + config.name(),
            NEEDS,
            c -> {
              CdcState read = CdcState.read(c, config, false);
              c.rollback();
              return read;
            });
    KafkaCommitted kafka = KafkaCommitted.read(config, state);
    if (json) {
      Json.print(out, json(config, state, kafka));
    } else {
      print(state, kafka);
    }
    out.flush();
  }

  /**
   * The position part of {@code status --json} and {@code position show --json}.
   *
   * @param kafka with exactly-once, the position committed in Kafka; else null
   */
  static ObjectNode json(RelayConfig config, CdcState state, KafkaCommitted kafka) {
    ObjectNode n = Json.object();
    n.put("relay", config.name());
    n.put("mode", "cdc");
    n.put("source", config.source().describe());
    n.put("offsets_table", config.cdc().offsetsTable());
    n.put("delivery_guarantee", config.delivery().exactlyOnce() ? "exactly-once" : "at-least-once");
    if (state.stored().isPresent()) {
      OffsetsRow p = state.stored().get();
      ObjectNode stored = n.putObject("position");
      stored.put("file", p.file());
      stored.put("pos", p.pos());
      stored.put("gtids", p.gtids());
      Json.put(stored, "event_time", p.eventTime());
      Json.put(n, "last_commit", p.committedAt());
      if (p.committedAt() != null) {
        n.put("last_commit_age_seconds", seconds(Duration.between(p.committedAt(), state.now())));
      }
    } else {
      n.putNull("position");
      n.putNull("last_commit");
    }
    n.put("handoff_pending", state.handoffPending());
    ObjectNode server = n.putObject("server_position");
    server.put("file", state.current().file());
    server.put("pos", state.current().pos());
    server.put("gtids", state.current().gtids());
    long behind = state.behindBytes();
    if (behind >= 0) {
      n.put("behind_bytes", behind);
    } else {
      n.putNull("behind_bytes");
    }
    n.put("purged", state.purged());
    n.put("earliest_binlog_file", state.earliestFile());
    if (kafka != null) {
      kafka.put(n);
    }
    if (state.leadership() != null) {
      state.leadership().put(n);
    }
    return n;
  }

  /**
   * The position lines of {@code status} and {@code position show}.
   *
   * @param kafka with exactly-once, the position committed in Kafka; else null
   */
  void print(CdcState state, KafkaCommitted kafka) {
    TextTable t = new TextTable("", "");
    t.row("relay:", config.name() + " (cdc) on " + source.describe());
    t.row("offsets table:", config.cdc().offsetsTable());
    if (state.handoffPending()) {
      t.row(
          "stored position:",
          "none: hand-off to CDC pending: the next start publishes the unpublished rows from a"
              + " consistent snapshot, then streams from its binlog position");
    } else if (state.stored().isEmpty()) {
      t.row(
          "stored position:",
          "none: the relay's first start takes a consistent snapshot and streams from its binlog"
              + " position (publishing the rows already in the table unless cdc.first.start=skip"
              + " or the relay streamed before)");
    } else {
      OffsetsRow p = state.stored().get();
      t.row("stored position:", p.position());
      t.row("  last event at:", p.eventTime());
      t.row(
          "  committed at:",
          p.committedAt() == null
              ? null
              : p.committedAt()
                  + " (the relay's clock), "
                  + ago(Duration.between(p.committedAt(), state.now())));
    }
    if (kafka != null) {
      kafka.print(t, state);
    }
    t.row("server position:", state.current());
    long behind = state.behindBytes();
    if (state.purged()) {
      t.row(
          "behind:",
          "unknown: binlog file "
              + state.stored().get().file()
              + " is no longer on the server (purged; the oldest is "
              + state.earliestFile()
              + "), so the relay cannot resume: see outbox-relay position reset --to-current");
    } else if (behind >= 0) {
      t.row("behind:", behind + " bytes of binlog");
    }
    if (state.leadership() != null) {
      state.leadership().print(t);
    }
    t.print(out);
  }

  /**
   * Moves the stored position to the server's current one, or with {@code yes} false, prints what
   * that would skip.
   *
   * @param yes whether to write it
   * @throws AdminException (exit 2) while a binlog reader of the relay's user is connected, or when
   *     the source is not MariaDB; nothing is changed then
   */
  public void resetToCurrent(boolean yes) throws AdminException {
    // The reset stores the current position with the GTIDs read around it (gtid_binlog_pos).
    if (SqlDialect.of(source.flavor()).gtidBinlogPositionQuery() == null) {
      throw AdminException.usage(
          "position reset writes MariaDB's position format; for "
              + source.flavor().name().toLowerCase(java.util.Locale.ROOT)
              + ", stop the relay and delete its row from "
              + config.cdc().offsetsTable()
              + ": its next start then takes the current position, publishing none of the rows"
              + " already in the table (it streamed before)");
    }
    if (yes && !config.cdc().retention().isZero()) {
      throw AdminException.usage(
          "a reset skips rows without publishing them, and cdc.retention would then delete them:"
              + " use 'outbox-relay handoff --to polling' (it publishes them), or set"
              + " cdc.retention=0ms for this command; nothing was changed");
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
    List<BinlogServer.Reader> readers = BinlogServer.readers(c, source.user());
    if (!readers.isEmpty() && yes) {
      readers = BinlogServer.readersStillConnected(c, config.cdc().offsetsTable(), source.user());
      if (!readers.isEmpty()) {
        throw AdminException.usage(running(readers) + "; nothing was changed");
      }
    }
    CdcState state = CdcState.read(c, config, yes);
    if (state.handoffPending()) {
      c.rollback();
      throw AdminException.usage(
          "a hand-off to CDC is pending for relay "
              + config.name()
              + ": its next start publishes the unpublished rows from a consistent snapshot, then"
              + " streams; start it instead of resetting; nothing was changed");
    }
    if (state.stored().isEmpty()) {
      c.rollback();
      out.println(
          "relay "
              + config.name()
              + " has no stored position in "
              + config.cdc().offsetsTable()
              + ": its first start takes a consistent snapshot and streams from its binlog"
              + " position; nothing to reset");
      return;
    }
    plan(state, maxId(c), yes);
    if (!readers.isEmpty()) {
      out.println(
          "warning: "
              + running(readers)
              + " (a relay that stopped a moment ago may still be listed: --yes checks again)");
    }
    if (!yes) {
      c.rollback();
      out.println("dry run: nothing changed; add --yes to write the new position");
      return;
    }
    write(c, state);
    c.commit();
    LOG.info(
        "operator {} reset the position of relay {} in {} on {} from {} to {}",
        operator.name(),
        config.name(),
        config.cdc().offsetsTable(),
        source.describe(),
        state.stored().get().position(),
        state.current());
    out.println(
        "reset: relay "
            + config.name()
            + " now starts at "
            + state.current()
            + "; start it, and it publishes every event committed from there on");
  }

  /** What a reset skips: the binlog range, and how to find the outbox rows in it. */
  private void plan(CdcState state, long maxId, boolean yes) {
    OffsetsRow stored = state.stored().get();
    out.println((yes ? "resetting" : "a reset would move") + " relay " + config.name() + ":");
    print(state, null);
    out.println(
        "skipped: every binlog event from "
            + stored.position()
            + " to "
            + state.current()
            + (state.purged()
                ? "; the files before " + state.earliestFile() + " were purged"
                : "; " + state.behindBytes() + " bytes of it are still on the server"));
    Instant from = stored.eventTime() != null ? stored.eventTime() : stored.committedAt();
    printRowsMaybeSkipped(
        out,
        source,
        from,
        maxId,
        " To publish them instead of skipping them, use 'outbox-relay handoff --to polling' rather"
            + " than a reset (docs/operations.md: Switching modes).");
  }

  private long maxId(Connection c) throws SQLException {
    try (PreparedStatement ps =
            c.prepareStatement(
                "SELECT MAX(" + source.sequenceColumn() + ") FROM " + source.table());
        ResultSet rs = ps.executeQuery()) {
      return rs.next() ? rs.getLong(1) : 0;
    }
  }

  private void write(Connection c, CdcState state) throws SQLException {
    OffsetsRow.write(
        c,
        config.cdc().offsetsTable(),
        config.name(),
        state.stored(),
        state.current(),
        state.serverId(),
        state.now().getEpochSecond());
  }

  static String ago(Duration d) {
    return seconds(d) + " s ago";
  }

  static double seconds(Duration d) {
    return Math.round(d.toMillis() / 100.0) / 10.0;
  }

  private String running(List<BinlogServer.Reader> readers) {
    return BinlogServer.describeConnected(
        readers,
        source.user(),
        source.describe(),
        "stop the CDC relay " + config.name() + " (and any other relay of this user) first");
  }

  /**
   * Prints which outbox rows a reset may skip: those inserted since {@code since} (less {@link
   * #OPEN_TRANSACTION_MARGIN}, for transactions open then) up to {@code maxId}, as a query the
   * operator can run, or that none can be when the table is empty or {@code since} is unknown.
   *
   * @param advice said after the query, e.g. how to publish them instead ("" for nothing)
   */
  static void printRowsMaybeSkipped(
      PrintWriter out, SourceConfig source, Instant since, long maxId, String advice) {
    if (maxId <= 0 || since == null) {
      out.println("outbox rows that may be affected: none (" + source.table() + " is empty)");
      return;
    }
    SqlDialect dialect = SqlDialect.of(source.flavor());
    long cutoff = since.minus(OPEN_TRANSACTION_MARGIN).getEpochSecond();
    out.println(
        "outbox rows committed in that range were never published. They are among the rows"
            + " inserted since "
            + since
            + " (a minute earlier, for transactions open then) up to id "
            + maxId
            + " (the newest now; later rows are published after the reset):");
    out.println(
        "  SELECT "
            + String.join(
                ", ",
                source.sequenceColumn(),
                source.columns().eventId(),
                source.columns().aggregateType(),
                source.columns().aggregateId(),
                source.columns().eventType())
            + ", created_at FROM "
            + dialect.qualifiedTable(source)
            + " WHERE "
            + source.sequenceColumn()
            + " <= "
            + maxId
            + " AND created_at >= "
            + dialect.fromEpochSeconds().replace("?", Long.toString(cutoff))
            + " ORDER BY "
            + source.sequenceColumn()
            + ";");
    out.println(
        "Some of them may have been published before the relay stopped (consumers deduplicate on"
            + " the event id)."
            + advice);
  }
}
