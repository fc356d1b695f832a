package io.outboxrelay.relay.cli;

import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** The {@code outbox-relay} command: entry point of the relay process. */
@Command(
    name = "outbox-relay",
    mixinStandardHelpOptions = true,
    versionProvider = VersionProvider.class,
    description =
        "Moves rows of a transactional outbox table to Apache Kafka, in order per aggregate.",
    subcommands = {
      RunCommand.class,
      ValidateCommand.class,
      StatusCommand.class,
      DeadCommand.class,
      PositionCommand.class,
      CommandLine.HelpCommand.class
    },
    footer = {"", "Exit codes: 0 ok, 1 fatal runtime error, 2 bad usage or configuration."})
public final class OutboxRelayCli implements Callable<Integer> {

  @Spec CommandSpec spec;

  /**
   * Runs the command line and exits with its code.
   *
   * @param args the arguments
   */
  public static void main(String[] args) {
    if (args.length > 0 && ADMIN_COMMANDS.contains(args[0])) {
      // Before anything logs: an operator command's standard output is its answer alone (JSON
      // with --json), so its log lines, the record of what it changed among them, go to standard
      // error (see log4j2.xml).
      System.setProperty(LOG_TARGET_PROPERTY, "SYSTEM_ERR");
    }
    System.exit(execute(args));
  }

  /** The commands whose logs go to standard error. */
  private static final java.util.Set<String> ADMIN_COMMANDS =
      java.util.Set.of("status", "dead", "position");

  /** The system property log4j2.xml reads for the console's target. */
  static final String LOG_TARGET_PROPERTY = "outbox-relay.log.target";

  /**
   * Runs the command line without exiting.
   *
   * @param args the arguments
   * @return the exit code
   */
  public static int execute(String... args) {
    return commandLine().execute(args);
  }

  /** The command line, ready to execute; tests set its output and error writers. */
  static CommandLine commandLine() {
    CommandLine cli = new CommandLine(new OutboxRelayCli());
    cli.setCaseInsensitiveEnumValuesAllowed(true);
    return cli;
  }

  @Override
  public Integer call() {
    spec.commandLine().usage(spec.commandLine().getErr());
    return ExitCodes.CONFIG;
  }
}
