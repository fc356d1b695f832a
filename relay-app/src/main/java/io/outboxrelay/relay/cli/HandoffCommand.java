package io.outboxrelay.relay.cli;

import io.outboxrelay.relay.admin.AdminException;
import io.outboxrelay.relay.admin.HandoffCommands;
import io.outboxrelay.relay.admin.Operator;
import io.outboxrelay.relay.config.RelayConfig;
import io.outboxrelay.relay.config.ValueType;
import java.io.PrintWriter;
import java.time.Duration;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code outbox-relay handoff --to polling | cdc}: moves the table to the other mode. */
@Command(
    name = "handoff",
    mixinStandardHelpOptions = true,
    description = {
      "Hand the outbox table from CDC to polling, or back, with every event published once while"
          + " the application keeps writing (MariaDB). Stop every relay of the table first; the"
          + " command refuses while one runs. --to polling marks what CDC published as PUBLISHED"
          + " (by binlog position, or by replication slot on PostgreSQL); --to cdc clears the CDC relay's position, so that its next start"
          + " publishes what polling has not published from a consistent snapshot. Neither"
          + " holds the application's writes back."
    })
final class HandoffCommand extends AdminCommand {

  /** The mode to hand the table to. */
  enum Target {
    POLLING,
    CDC
  }

  @Option(names = "--to", required = true, paramLabel = "MODE", description = "polling or cdc.")
  Target to;

  @Option(
      names = "--open-transactions",
      paramLabel = "DURATION",
      defaultValue = "10m",
      description =
          "Only when the binlog from the CDC position is gone (purged) or holds statement-based"
              + " changes of the table, or the PostgreSQL replication slot was invalidated or"
              + " dropped: the longest an application transaction stays open, e.g. 10m (default)"
              + " or 2h. Rows created that long before the position's last event count as"
              + " published.")
  String openTransactions;

  private Duration margin;

  @Override
  void checkArguments() throws AdminException {
    margin = duration("--open-transactions", openTransactions);
  }

  private static Duration duration(String option, String value) throws AdminException {
    try {
      return ValueType.optionDuration(option, value);
    } catch (IllegalArgumentException e) {
      throw AdminException.usage(e.getMessage() + " (a duration such as 10m or 2h)");
    }
  }

  @Override
  boolean knowsPostgresCdc() {
    return true;
  }

  @Override
  void run(RelayConfig config, PrintWriter out) throws AdminException {
    HandoffCommands commands = new HandoffCommands(config, out, Operator.current());
    if (to == Target.POLLING) {
      commands.toPolling(margin);
    } else {
      commands.toCdc();
    }
  }
}
