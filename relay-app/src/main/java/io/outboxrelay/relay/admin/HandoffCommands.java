package io.outboxrelay.relay.admin;

import io.outboxrelay.relay.config.RelayConfig;
import io.outboxrelay.relay.source.SqlDialect;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.Locale;

/**
 * {@code outbox-relay handoff --to polling | --to cdc}: moves an outbox table from one mode to the
 * other with every event published once, while the application keeps writing, on MariaDB and
 * PostgreSQL. The two directions are {@link HandoffToPolling} (by binlog position) or {@link
 * SlotHandoffToPolling} (by replication slot), and {@link HandoffToCdc}; both refuse, changing
 * nothing, while a relay of the table may still run ({@link RelayPresence}) or when the table is
 * not in the mode they hand from ({@link io.outboxrelay.relay.source.ModeOwnership}), and both
 * record the hand-off ({@link io.outboxrelay.relay.source.HandoffRecords}). Not thread-safe; one
 * instance per command.
 */
public final class HandoffCommands {

  private final Handoff handoff;

  /**
   * Commands over the hand-off between modes.
   *
   * @param config the relay's configuration, with its CDC settings ({@code --mode cdc})
   * @param out where the answer goes
   * @param operator who runs the command
   * @throws AdminException (exit 2) when the configuration has no CDC settings or the source is
   *     MySQL
   */
  public HandoffCommands(RelayConfig config, PrintWriter out, Operator operator)
      throws AdminException {
    if (config.cdc() == null) {
      throw AdminException.usage(
          "handoff needs the CDC settings (offsets, schema history and lease tables): run it with"
              + " the CDC relay's configuration, or add --mode cdc");
    }
    SqlDialect dialect = SqlDialect.of(config.source().flavor());
    if (dialect.hasBinlog() && !dialect.snapshotsAtBinlogPosition()) {
      throw AdminException.usage(
          "handoff needs MariaDB or PostgreSQL: it takes a consistent snapshot with its binlog"
              + " position"
              + " (binlog_snapshot_file/binlog_snapshot_position), which "
              + config.source().flavor().name().toLowerCase(Locale.ROOT)
              + " does not offer; nothing was changed");
    }
    this.handoff = new Handoff(config, out, operator);
  }

  /**
   * Hands the table from CDC to polling.
   *
   * @param openTransactions how long a transaction may stay open, for the fallback without binlog
   * @throws AdminException when a relay still runs or the table is polling's already (exit 2), or
   *     the database fails (exit 1)
   */
  public void toPolling(Duration openTransactions) throws AdminException {
    if (handoff.dialect.hasBinlog()) {
      new HandoffToPolling(handoff).run(openTransactions);
    } else {
      new SlotHandoffToPolling(handoff).run(openTransactions);
    }
  }

  /**
   * Hands the table from polling to CDC. Waits for no application transaction.
   *
   * @throws AdminException when a relay still runs or the table is CDC's already (exit 2), or the
   *     database fails (exit 1)
   */
  public void toCdc() throws AdminException {
    new HandoffToCdc(handoff).run();
  }
}
