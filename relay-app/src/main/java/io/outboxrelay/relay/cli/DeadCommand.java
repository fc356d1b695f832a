package io.outboxrelay.relay.cli;

import io.outboxrelay.relay.admin.AdminException;
import io.outboxrelay.relay.admin.DeadCommands;
import io.outboxrelay.relay.admin.DeadFilter;
import io.outboxrelay.relay.admin.DeadSelection;
import io.outboxrelay.relay.admin.EventRef;
import io.outboxrelay.relay.admin.Operator;
import io.outboxrelay.relay.config.RelayConfig;
import java.io.PrintWriter;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code outbox-relay dead}: the DEAD events of polling mode. */
@Command(
    name = "dead",
    mixinStandardHelpOptions = true,
    description = "List, show, requeue or skip DEAD events (polling mode's table).",
    subcommands = {
      DeadCommand.ListEvents.class,
      DeadCommand.ShowEvent.class,
      DeadCommand.RequeueEvents.class,
      DeadCommand.SkipEvents.class
    })
final class DeadCommand extends CommandGroup {

  /** A {@code dead} subcommand: runs against the outbox table's events. */
  abstract static class OnDeadEvents extends AdminCommand {

    /** Dead events are rows of the table, the same in every mode and on every database. */
    @Override
    boolean knowsPostgresCdc() {
      return true;
    }

    /** Runs the subcommand. */
    abstract void run(DeadCommands dead) throws AdminException;

    @Override
    final void run(RelayConfig config, PrintWriter out) throws AdminException {
      run(new DeadCommands(config, out, Operator.current()));
    }
  }

  /** {@code dead list}. */
  @Command(
      name = "list",
      mixinStandardHelpOptions = true,
      description =
          "List DEAD events, oldest first: id, event id, type, aggregate, attempts, created time"
              + " and last error. Never the payload.")
  static final class ListEvents extends OnDeadEvents {

    @Mixin DeadFilterOptions filter;

    @Option(names = "--json", description = "Print JSON.")
    boolean json;

    private DeadFilter parsed;

    @Override
    void checkArguments() throws AdminException {
      parsed = filter.parse(50);
    }

    @Override
    void run(DeadCommands dead) throws AdminException {
      dead.list(parsed, json);
    }
  }

  /** {@code dead show}. */
  @Command(
      name = "show",
      mixinStandardHelpOptions = true,
      description = "Show one event (of any status) by row id or event id.")
  static final class ShowEvent extends OnDeadEvents {

    @Parameters(paramLabel = "ID", description = "The row id (a number) or the event id.")
    String id;

    @Option(names = "--payload", description = "Also print the payload.")
    boolean payload;

    @Option(names = "--json", description = "Print JSON.")
    boolean json;

    private EventRef ref;

    @Override
    void checkArguments() throws AdminException {
      ref = EventRef.parse(id);
    }

    @Override
    void run(DeadCommands dead) throws AdminException {
      dead.show(ref, payload, json);
    }
  }

  /** What requeue and skip share: ids or a filter, and a dry run. */
  abstract static class Change extends OnDeadEvents {

    @Parameters(
        arity = "0..*",
        paramLabel = "ID",
        description = "Row ids or event ids; each must be DEAD, or nothing changes.")
    List<String> ids;

    @Mixin DeadFilterOptions filter;

    @Option(names = "--all", description = "Every DEAD event (up to --limit).")
    boolean all;

    @Option(names = "--dry-run", description = "Print what would change; change nothing.")
    boolean dryRun;

    DeadSelection selection;

    @Override
    void checkArguments() throws AdminException {
      selection = DeadSelection.of(ids == null ? List.of() : ids, filter.parse(1000), all);
    }
  }

  /** {@code dead requeue}. */
  @Command(
      name = "requeue",
      mixinStandardHelpOptions = true,
      description = {
        "Make DEAD events PENDING again, due now, with no attempts: polling publishes each before"
            + " the later events of its aggregate that are still waiting. Safe while relays run:"
            + " one transaction changes only rows that are DEAD."
      })
  static final class RequeueEvents extends Change {
    @Override
    void run(DeadCommands dead) throws AdminException {
      dead.requeue(selection, dryRun);
    }
  }

  /** {@code dead skip}. */
  @Command(
      name = "skip",
      mixinStandardHelpOptions = true,
      description = {
        "Mark DEAD events SKIPPED: never published, kept with the reason in last_error; they no"
            + " longer hold back their aggregate. The action is logged with who and why."
      })
  static final class SkipEvents extends Change {

    @Option(
        names = "--reason",
        paramLabel = "TEXT",
        description = "Why (required): kept in last_error after 'skipped by operator <user>: '.")
    String reason;

    @Override
    void checkArguments() throws AdminException {
      super.checkArguments();
      reason = Operator.checkReason(reason);
    }

    @Override
    void run(DeadCommands dead) throws AdminException {
      dead.skip(selection, reason, dryRun);
    }
  }
}
