package io.outboxrelay.relay.admin;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.outboxrelay.relay.config.RelayConfig;
import io.outboxrelay.relay.config.SourceConfig;
import io.outboxrelay.relay.failure.SqlErrors;
import io.outboxrelay.relay.source.SqlDialect;
import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code outbox-relay dead list | show | requeue | skip}: DEAD events of the polling table.
 *
 * <p>Requeue and skip run in one short READ COMMITTED transaction: the selected rows are read
 * {@code FOR UPDATE}, every named one must be DEAD (otherwise nothing changes), and one conditional
 * {@code UPDATE ... WHERE status = 'DEAD'} changes them. Polling workers never claim or finish a
 * DEAD row, so this is safe while they run. A requeued event is PENDING and due at once (database
 * clock) with no attempts; being its aggregate's lowest unpublished row, it is published before the
 * aggregate's later events that are still waiting (see docs/operations.md for {@code
 * polling.dead.blocks.aggregate=false}). A skipped event is SKIPPED: never published, kept with the
 * operator's reason in {@code last_error}, and no longer holding back its aggregate.
 *
 * <p>Not thread-safe; one instance per command.
 */
public final class DeadCommands {

  private static final Logger LOG = LoggerFactory.getLogger(DeadCommands.class);

  private static final String NEEDS =
      "The dead commands need the polling columns of the outbox table (see"
          + " config/*/outbox-schema.sql) and SELECT, UPDATE on it for source.user";

  private final SourceConfig source;
  private final SqlDialect dialect;
  private final PrintWriter out;
  private final Operator operator;
  private final String where;

  /**
   * Commands over the configured outbox table.
   *
   * @param config the relay's configuration (any mode)
   * @param out where the answer goes
   * @param operator who runs the command
   */
  public DeadCommands(RelayConfig config, PrintWriter out, Operator operator) {
    this.source = config.source();
    this.dialect = SqlDialect.of(source.flavor());
    this.out = out;
    this.operator = operator;
    this.where = source.table() + " on " + source.describe();
  }

  /**
   * Lists DEAD events, never their payloads.
   *
   * @param filter which ones
   * @param json whether to print JSON
   * @throws AdminException when the database cannot be read
   */
  public void list(DeadFilter filter, boolean json) throws AdminException {
    List<OutboxRow> rows =
        Connections.run(
            source,
            "reading DEAD events from " + where,
            NEEDS,
            c -> {
              List<OutboxRow> read = OutboxTable.checked(c, dialect, source).dead(filter, false);
              c.rollback();
              return read;
            });
    boolean more = rows.size() > filter.limit();
    List<OutboxRow> shown = more ? rows.subList(0, filter.limit()) : rows;
    if (json) {
      ObjectNode doc = Json.object();
      doc.put("table", source.table());
      doc.put("filter", filter.describe());
      ArrayNode events = doc.putArray("events");
      shown.forEach(r -> events.add(Json.row(r)));
      doc.put("more", more);
      Json.print(out, doc);
    } else if (shown.isEmpty()) {
      out.println("no DEAD events in " + where + " (" + filter.describe() + ")");
    } else {
      out.println(
          "DEAD events in "
              + where
              + " ("
              + filter.describe()
              + "), oldest first: "
              + shown.size());
      table(shown);
      if (more) {
        out.println(
            "more DEAD events match: raise --limit (now "
                + filter.limit()
                + ") or narrow the filter");
      }
    }
    out.flush();
  }

  /**
   * Shows one event of any status; its payload only when asked.
   *
   * @param ref the event
   * @param payload whether to print the payload
   * @param json whether to print JSON
   * @throws AdminException (exit 2) when there is no such event
   */
  public void show(EventRef ref, boolean payload, boolean json) throws AdminException {
    OutboxRow row =
        Connections.run(
            source,
            "reading " + ref + " from " + where,
            NEEDS,
            c -> {
              OutboxRow found = find(OutboxTable.checked(c, dialect, source), ref, payload, false);
              c.rollback();
              return found;
            });
    if (json) {
      Json.print(out, Json.row(row));
    } else {
      TextTable t = new TextTable("", "");
      t.row("id:", row.id())
          .row("event_id:", row.eventId())
          .row("status:", row.status())
          .row("event_type:", row.eventType())
          .row("aggregate_type:", row.aggregateType())
          .row("aggregate_id:", row.aggregateId())
          .row("attempts:", row.attempts())
          .row("created_at:", row.createdAt())
          .row("next_attempt_at:", row.nextAttemptAt())
          .row("processing_until:", row.processingUntil())
          .row("published_at:", row.publishedAt())
          .row("last_error:", TextTable.cell(row.lastError(), 10_000));
      t.print(out);
      if (payload) {
        out.println("payload:");
        out.println(row.payload());
      } else {
        out.println("(payload not shown: add --payload)");
      }
    }
    out.flush();
  }

  /**
   * Makes DEAD events PENDING again, due now.
   *
   * @param selection which ones
   * @param dryRun print what would change and change nothing
   * @throws AdminException (exit 2) when a named event is not DEAD or does not exist, or more
   *     events match than the limit; nothing is changed then
   */
  public void requeue(DeadSelection selection, boolean dryRun) throws AdminException {
    change(
        selection,
        dryRun,
        "requeue",
        "DEAD -> PENDING, attempts -> 0, due now (database clock), no claim",
        (table, rows) -> table.requeue(rows.stream().map(OutboxRow::id).toList()),
        null);
  }

  /**
   * Marks DEAD events SKIPPED: never published.
   *
   * @param selection which ones
   * @param reason why, kept in {@code last_error} after who skipped them
   * @param dryRun print what would change and change nothing
   * @throws AdminException (exit 2) when the reason is missing, a named event is not DEAD or does
   *     not exist, or more events match than the limit; nothing is changed then
   */
  public void skip(DeadSelection selection, String reason, boolean dryRun) throws AdminException {
    String checked = Operator.checkReason(reason);
    change(
        selection,
        dryRun,
        "skip",
        "DEAD -> SKIPPED (never published), last_error -> \""
            + operator.skippedError(checked, null)
            + " | was DEAD: <its last error>\"",
        (table, rows) -> {
          Map<Long, String> errors = new LinkedHashMap<>();
          rows.forEach(r -> errors.put(r.id(), operator.skippedError(checked, r.lastError())));
          return table.skip(errors);
        },
        checked);
  }

  /** One change of DEAD rows. */
  private interface Change {
    int apply(OutboxTable table, List<OutboxRow> rows) throws SQLException;
  }

  private void change(
      DeadSelection selection,
      boolean dryRun,
      String verb,
      String effect,
      Change change,
      String reason)
      throws AdminException {
    List<OutboxRow> rows =
        Connections.run(
            source,
            verb + " of " + selection.describe() + " in " + where,
            NEEDS,
            c -> {
              try {
                return changeIn(c, selection, dryRun, change);
              } catch (SQLException e) {
                if (SqlErrors.isCheckViolation(
                    e)) { // PostgreSQL: the status CHECK of an older table
                  throw AdminException.usage(
                      "table "
                          + source.table()
                          + " does not allow status SKIPPED yet: run "
                          + dialect.migration("003-allow-skipped-status.sql")
                          + "; nothing was changed",
                      e);
                }
                throw e;
              }
            });
    if (rows.isEmpty()) {
      out.println("no " + selection.describe() + " in " + where + ": nothing to " + verb);
      out.flush();
      return;
    }
    List<Long> ids = rows.stream().map(OutboxRow::id).toList();
    if (!dryRun) {
      LOG.info(
          "operator {} {} {} DEAD event(s) in {}: ids {}{}",
          operator.name(),
          verb.equals("skip") ? "skipped" : "requeued",
          rows.size(),
          where,
          ids,
          reason == null ? "" : "; reason: " + reason);
    }
    out.println(
        (dryRun ? "would " + verb : verb.equals("skip") ? "skipped" : "requeued")
            + " "
            + rows.size()
            + (rows.size() == 1 ? " event" : " events")
            + " in "
            + where
            + ": "
            + effect);
    table(rows);
    if (dryRun) {
      out.println("dry run: nothing changed; run again without --dry-run to " + verb);
    }
    out.flush();
  }

  /** Selects the rows and, unless a dry run, changes them and commits; returns the rows. */
  private List<OutboxRow> changeIn(
      Connection c, DeadSelection selection, boolean dryRun, Change change)
      throws SQLException, AdminException {
    OutboxTable table = OutboxTable.checked(c, dialect, source);
    List<OutboxRow> rows = select(table, selection, !dryRun);
    if (rows.isEmpty() || dryRun) {
      c.rollback();
      return rows;
    }
    int changed = change.apply(table, rows);
    if (changed != rows.size()) {
      // Cannot happen under the row locks; never leave half a change.
      throw AdminException.failure(
          "only "
              + changed
              + " of "
              + rows.size()
              + " events were still DEAD when changed; nothing was changed, run again",
          null);
    }
    c.commit();
    return rows;
  }

  private List<OutboxRow> select(OutboxTable table, DeadSelection selection, boolean lock)
      throws SQLException, AdminException {
    if (selection.refs().isEmpty()) {
      DeadFilter filter = selection.filter();
      List<OutboxRow> rows = table.dead(filter, lock);
      if (rows.size() > filter.limit()) {
        throw AdminException.usage(
            "more than "
                + filter.limit()
                + " DEAD events match ("
                + filter.describe()
                + "): raise --limit (at most "
                + DeadFilter.MAX_LIMIT
                + ") or narrow the filter; nothing was changed");
      }
      return rows;
    }
    Map<Long, OutboxRow> rows = new LinkedHashMap<>();
    List<String> problems = new ArrayList<>();
    for (EventRef ref : selection.refs()) {
      Optional<OutboxRow> row = tryFind(table, ref, lock, problems);
      if (row.isEmpty()) {
        continue;
      }
      OutboxRow r = row.get();
      if (!r.status().equals("DEAD")) {
        problems.add(
            ref
                + (ref.id() == null ? " (id " + r.id() + ")" : "")
                + " is "
                + r.status()
                + ", not DEAD");
      } else {
        rows.putIfAbsent(r.id(), r);
      }
    }
    if (!problems.isEmpty()) {
      throw AdminException.usage(String.join("; ", problems) + ": nothing was changed");
    }
    List<OutboxRow> sorted = new ArrayList<>(rows.values());
    sorted.sort((a, b) -> Long.compare(a.id(), b.id()));
    return sorted;
  }

  private Optional<OutboxRow> tryFind(
      OutboxTable table, EventRef ref, boolean lock, List<String> problems) throws SQLException {
    try {
      Optional<OutboxRow> row = table.find(ref, false, lock);
      if (row.isEmpty()) {
        problems.add("no event with " + ref + " in " + source.table());
      }
      return row;
    } catch (IllegalArgumentException e) {
      problems.add(ref + " cannot be an event id here: event_id is a uuid column");
      return Optional.empty();
    }
  }

  private OutboxRow find(OutboxTable table, EventRef ref, boolean payload, boolean lock)
      throws SQLException, AdminException {
    try {
      return table
          .find(ref, payload, lock)
          .orElseThrow(() -> AdminException.usage("no event with " + ref + " in " + where));
    } catch (IllegalArgumentException e) {
      throw AdminException.usage(
          ref + " cannot be an event id in " + where + ": event_id is a uuid column");
    }
  }

  private void table(List<OutboxRow> rows) {
    TextTable t =
        new TextTable(
            ">id", "event_id", "event_type", "aggregate", ">attempts", "created_at", "last_error");
    for (OutboxRow r : rows) {
      t.row(
          r.id(),
          r.eventId(),
          TextTable.cell(r.eventType(), 40),
          TextTable.cell(r.aggregate(), 60),
          r.attempts(),
          r.createdAt(),
          TextTable.cell(r.lastError(), 100));
    }
    t.print(out);
  }
}
