package io.outboxrelay.relay.admin;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.outboxrelay.relay.config.RelayConfig;
import io.outboxrelay.relay.config.SourceConfig;
import io.outboxrelay.relay.failure.SqlErrors;
import io.outboxrelay.relay.source.HandoffRecords;
import io.outboxrelay.relay.source.SqlDialect;
import java.io.PrintWriter;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;

/**
 * {@code outbox-relay status}: what a relay of this configuration has to do, from its database.
 * CDC: the stored position, the server's, how far apart, and the last position commit. Polling: the
 * rows per open status (PENDING, PROCESSING, DEAD, SKIPPED; PUBLISHED rows are not counted, which
 * on a large table would read them all), the age of the oldest unpublished row by the database's
 * clock, and the latest publish. Both: the table's latest hand-off; CDC also who leads ({@link
 * Leadership}). Read-only. Not thread-safe.
 */
public final class RelayStatus {

  private static final String NEEDS =
      "status needs SELECT on the outbox table (polling: with its polling columns) and, in CDC"
          + " mode, on the offsets table, with BINLOG MONITOR";

  private final RelayConfig config;
  private final SourceConfig source;
  private final SqlDialect dialect;
  private final PrintWriter out;

  /**
   * The status of the configured relay.
   *
   * @param config the relay's configuration
   * @param out where the answer goes
   */
  public RelayStatus(RelayConfig config, PrintWriter out) {
    this.config = config;
    this.source = config.source();
    this.dialect = SqlDialect.of(source.flavor());
    this.out = out;
  }

  /**
   * Prints the status.
   *
   * @param json whether to print JSON
   * @throws AdminException when the database cannot be read
   */
  public void print(boolean json) throws AdminException {
    Connections.run(
        source,
        "reading the status of relay " + config.name(),
        NEEDS,
        c -> {
          requireOutboxTable(c);
          if (config.cdc() != null && !dialect.hasBinlog()) {
            PostgresCdcStatus status =
                PostgresCdcStatus.read(
                    c,
                    config,
                    io.outboxrelay.relay.source.cdc.PostgresReplication.slotName(config.name()));
            c.rollback();
            status.print(out, config, json);
          } else if (config.cdc() != null) {
            boolean offsetsTable = offsetsTableExists(c);
            CdcState state =
                offsetsTable
                    ? CdcState.read(c, config, false)
                    : CdcState.readWithoutOffsetsTable(c, config);
            c.rollback();
            // Kafka is read after the database, and does not answer for it: when Kafka does not
            // answer in time, its position is unknown and the database's part stands.
            KafkaCommitted kafka = KafkaCommitted.read(config, state);
            PositionCommands position = new PositionCommands(config, out, null);
            if (json) {
              ObjectNode n = PositionCommands.json(config, state, kafka);
              n.put("offsets_table_exists", offsetsTable);
              Json.print(out, n);
            } else {
              position.print(state, kafka);
              if (!offsetsTable) {
                out.println(notCreatedYet());
              }
            }
          } else {
            Polling p =
                Polling.read(OutboxTable.checked(c, dialect, source)).withHandoff(handoff(c));
            c.rollback();
            if (json) {
              Json.print(out, json(p));
            } else {
              print(p);
            }
          }
          return null;
        });
    out.flush();
  }

  /**
   * Refuses, naming the outbox table, a database without it: the first thing missing on a database
   * not set up for the relay is its outbox table, whatever else is missing too.
   */
  private void requireOutboxTable(java.sql.Connection c) throws SQLException, AdminException {
    String table = dialect.qualifiedTable(source);
    try (java.sql.Statement st = c.createStatement()) {
      st.executeQuery("SELECT 1 FROM " + table + " WHERE 1 = 0").close();
    } catch (SQLException e) {
      c.rollback();
      if (SqlErrors.isNoSuchTable(e) || SqlErrors.isUndefinedTable(e)) {
        throw AdminException.usage(
            "there is no outbox table "
                + table
                + " on "
                + source.describe()
                + ": check source.database and source.table, or create it with "
                + dialect.outboxSchemaFile(),
            e);
      }
      throw e;
    }
  }

  /**
   * Whether the CDC offsets table exists. A relay creates it at its first start: on a database
   * where none ran yet its absence is no missing grant (a table the user may not read at all is
   * still reported as one, by the read that follows).
   */
  private boolean offsetsTableExists(java.sql.Connection c) throws SQLException {
    try (java.sql.Statement st = c.createStatement()) {
      st.executeQuery("SELECT 1 FROM " + config.cdc().offsetsTable() + " WHERE 1 = 0").close();
      return true;
    } catch (SQLException e) {
      if (SqlErrors.isNoSuchTable(e)) {
        return false;
      }
      throw e;
    }
  }

  private String notCreatedYet() {
    return "offsets table "
        + config.cdc().offsetsTable()
        + " does not exist yet: relay "
        + config.name()
        + " has not started on this database (it creates the table at its first start)";
  }

  /** The table's latest hand-off (MariaDB/MySQL), if any and if the user may read it. */
  private Optional<HandoffRecords.Handoff> handoff(java.sql.Connection c) throws SQLException {
    if (!dialect.hasBinlog()) {
      return Optional.empty();
    }
    try {
      return HandoffRecords.latest(c, source);
    } catch (SQLException e) {
      if (SqlErrors.isTableOrDatabaseDenied(e)) {
        return Optional.empty();
      }
      throw e;
    }
  }

  /** What the polling table says. */
  private record Polling(
      Map<String, Long> counts,
      Optional<OutboxTable.Oldest> oldest,
      Optional<Instant> lastPublished,
      Instant now,
      Optional<HandoffRecords.Handoff> handoff) {

    Polling withHandoff(Optional<HandoffRecords.Handoff> h) {
      return new Polling(counts, oldest, lastPublished, now, h);
    }

    static Polling read(OutboxTable table) throws SQLException {
      Map<String, Long> counts = table.openCounts();
      Optional<OutboxTable.Oldest> pending = table.oldest("PENDING");
      Optional<OutboxTable.Oldest> processing = table.oldest("PROCESSING");
      Optional<OutboxTable.Oldest> oldest =
          pending.isEmpty()
              ? processing
              : processing.isEmpty()
                      || !processing.get().createdAt().isBefore(pending.get().createdAt())
                  ? pending
                  : processing;
      return new Polling(counts, oldest, table.lastPublished(), table.now(), Optional.empty());
    }
  }

  private ObjectNode json(Polling p) {
    ObjectNode n = Json.object();
    n.put("relay", config.name());
    n.put("mode", "polling");
    n.put("source", source.describe());
    n.put("table", source.table());
    ObjectNode counts = n.putObject("counts");
    p.counts()
        .forEach((status, count) -> counts.put(status.toLowerCase(java.util.Locale.ROOT), count));
    n.put("dead", p.counts().get("DEAD"));
    if (p.oldest().isPresent()) {
      OutboxTable.Oldest o = p.oldest().get();
      ObjectNode oldest = n.putObject("oldest_pending");
      oldest.put("id", o.id());
      oldest.put("created_at", o.createdAt().toString());
      oldest.put("age_seconds", PositionCommands.seconds(Duration.between(o.createdAt(), o.now())));
    } else {
      n.putNull("oldest_pending");
    }
    if (p.handoff().isPresent()) {
      HandoffRecords.Handoff h = p.handoff().get();
      ObjectNode o = n.putObject("handoff");
      o.put("to", h.to().name().toLowerCase(java.util.Locale.ROOT));
      o.put("handed_at", h.handedAt());
      o.put("seconds_ago", h.secondsAgo());
      o.put("operator", h.operator());
      o.put("finished", h.finished());
    } else {
      n.putNull("handoff");
    }
    Json.put(n, "last_commit", p.lastPublished().orElse(null));
    if (p.lastPublished().isPresent()) {
      n.put(
          "last_commit_age_seconds",
          PositionCommands.seconds(Duration.between(p.lastPublished().get(), p.now())));
    }
    return n;
  }

  private void print(Polling p) {
    TextTable t = new TextTable("", "");
    t.row(
        "relay:",
        config.name() + " (polling) on " + source.describe() + ", table " + source.table());
    p.counts()
        .forEach((status, count) -> t.row(status.toLowerCase(java.util.Locale.ROOT) + ":", count));
    t.row(
        "oldest pending:",
        p.oldest()
            .map(
                o ->
                    "id "
                        + o.id()
                        + ", created "
                        + o.createdAt()
                        + ", "
                        + PositionCommands.ago(Duration.between(o.createdAt(), o.now()))
                        + " (database clock)")
            .orElse("none"));
    t.row(
        "last publish:",
        p.lastPublished()
            .map(l -> l + ", " + PositionCommands.ago(Duration.between(l, p.now())))
            .orElse("none"));
    if (dialect.hasBinlog()) {
      t.row("hand-off:", p.handoff().map(HandoffRecords.Handoff::describe).orElse("none recorded"));
    }
    t.print(out);
  }
}
