package io.outboxrelay.relay.source.cdc;

import io.outboxrelay.relay.config.RelayConfig;
import io.outboxrelay.relay.config.SourceConfig;
import java.util.Collection;

/**
 * The messages with which CDC mode refuses to start or stops: each says what happened, with the
 * names and tables needed to act, and what to do. Immutable.
 *
 * @param config the relay configuration, in CDC mode
 */
record CdcFailureMessages(RelayConfig config) {

  /**
   * The stored binlog position is no longer on the server.
   *
   * @param detail the failure as described by the error classifier
   */
  String positionUnavailable(String detail) {
    return "the binlog position stored in "
        + config.cdc().offsetsTable()
        + " for relay.name '"
        + config.name()
        + "' can no longer be read from "
        + config.source().describe()
        + " (its binlog was purged, or reset, while the relay was down), so events may have"
        + " been missed: recover them with 'outbox-relay handoff --to polling', run polling"
        + " mode until it has caught up, then 'outbox-relay handoff --to cdc' (docs/operations.md:"
        + " Switching modes) ("
        + detail
        + ")";
  }

  /**
   * Debezium's schema history does not describe the outbox table.
   *
   * @param detail the engine's message or failure
   */
  String schemaUnknown(String detail) {
    SourceConfig source = config.source();
    return "the schema history of relay.name '"
        + config.name()
        + "' in "
        + config.cdc().schemaHistoryTable()
        + " does not describe "
        + source.database()
        + "."
        + source.table()
        + ": its stored position belongs to another table (source.table changed) or the"
        + " history is incomplete. Start fresh: a new relay.name, or delete this relay's row"
        + " from "
        + config.cdc().offsetsTable()
        + " (docs/cdc.md: Failures and recovery) ("
        + detail
        + ")";
  }

  /**
   * The stored position was taken on other tables than the outbox table.
   *
   * @param tables the tables its schema history names
   */
  String positionOfAnotherTable(Collection<String> tables) {
    SourceConfig source = config.source();
    return "the position stored in "
        + config.cdc().offsetsTable()
        + " for relay.name '"
        + config.name()
        + "' belongs to "
        + String.join(", ", tables)
        + ", not to "
        + source.database()
        + "."
        + source.table()
        + " (source.table changed?): to capture "
        + source.table()
        + " use a new relay.name (it starts from the current binlog position), or"
        + " delete this relay's row from "
        + config.cdc().offsetsTable()
        + " (docs/cdc.md: Failures and recovery)";
  }

  /**
   * A first start with retention on, over rows that may be unpublished.
   *
   * @param table the outbox table, qualified
   * @param pending the PENDING rows counted, at most 1000
   */
  String retentionOverPendingRows(String table, long pending) {
    return "cdc.retention is set and relay.name '"
        + config.name()
        + "' starts fresh on "
        + table
        + ", which already holds "
        + (pending >= 1000 ? "1000 or more" : String.valueOf(pending))
        + " PENDING row(s): with cdc.first.start=skip CDC does not publish them and"
        + " retention would delete them unpublished. To publish them, start with"
        + " cdc.first.start=publish (if a polling relay left them, run 'outbox-relay handoff"
        + " --to cdc' first); if they must not be published, start once without"
        + " cdc.retention (docs/cdc.md: Retention)";
  }
}
