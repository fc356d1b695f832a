package io.outboxrelay.relay.cli;

import io.outboxrelay.relay.admin.AdminException;
import io.outboxrelay.relay.admin.Operator;
import io.outboxrelay.relay.admin.PositionCommands;
import io.outboxrelay.relay.config.RelayConfig;
import java.io.PrintWriter;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code outbox-relay position}: the CDC relay's stored binlog position. */
@Command(
    name = "position",
    mixinStandardHelpOptions = true,
    description = "Show or reset the binlog position a CDC relay resumes from.",
    subcommands = {PositionCommand.Show.class, PositionCommand.Reset.class})
final class PositionCommand extends CommandGroup {

  /** {@code position show}. */
  @Command(
      name = "show",
      mixinStandardHelpOptions = true,
      description =
          "Show the stored position, the server's current one, and how far apart (or that the"
              + " stored one was purged).")
  static final class Show extends AdminCommand {

    @Option(names = "--json", description = "Print JSON.")
    boolean json;

    @Override
    void run(RelayConfig config, PrintWriter out) throws AdminException {
      new PositionCommands(config, out, Operator.current()).show(json);
    }
  }

  /** {@code position reset}. */
  @Command(
      name = "reset",
      mixinStandardHelpOptions = true,
      description = {
        "Move the stored position to the server's current one (MariaDB), for a position purged"
            + " from the binlog while the relay was down. Without --yes, print what it would skip"
            + " and how to find those outbox rows. Refused while a binlog reader of the relay's"
            + " user is connected."
      })
  static final class Reset extends AdminCommand {

    @Option(
        names = "--to-current",
        description = "Reset to the server's current binlog position (required).")
    boolean toCurrent;

    @Option(names = "--yes", description = "Write it; without it nothing changes.")
    boolean yes;

    @Override
    void checkArguments() throws AdminException {
      if (!toCurrent) {
        throw AdminException.usage(
            "say where to: --to-current (the server's current binlog position) is the only"
                + " target");
      }
    }

    @Override
    void run(RelayConfig config, PrintWriter out) throws AdminException {
      new PositionCommands(config, out, Operator.current()).resetToCurrent(yes);
    }
  }
}
