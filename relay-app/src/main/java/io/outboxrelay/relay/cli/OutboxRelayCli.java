package io.outboxrelay.relay.cli;

import java.io.PrintWriter;
import java.security.Security;
import java.util.Set;
import java.util.concurrent.Callable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** The {@code outbox-relay} command: entry point of the relay process. */
@Command(
    name = OutboxRelayCli.NAME,
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
      HandoffCommand.class,
      CommandLine.HelpCommand.class
    },
    footer = {"", "Exit codes: 0 ok, 1 fatal runtime error, 2 bad usage or configuration."})
public final class OutboxRelayCli implements Callable<Integer> {

  /** The program's name, as usage and errors show it. */
  static final String NAME = "outbox-relay";

  @Spec CommandSpec spec;

  /**
   * Runs the command line and exits with its code.
   *
   * @param args the arguments
   */
  public static void main(String[] args) {
    // Before the first name lookup fixes the policy: a failed lookup is not remembered (the JDK
    // keeps one for 10 s), so that a start waiting for source.host or kafka.bootstrap.servers to
    // resolve sees the name as soon as the DNS has it (relay.resolve.timeout).
    Security.setProperty("networkaddress.cache.negative.ttl", "0");
    if (args.length > 0 && ADMIN_COMMANDS.contains(args[0])) {
      // Before anything logs (see log4j2.xml): an operator command's standard output is its
      // answer alone (JSON with --json), so its log lines, the record of what it changed among
      // them, go to standard error; and a refused login is its own one-line error, not also the
      // driver's WARN.
      System.setProperty("outbox-relay.log.target", "SYSTEM_ERR");
      System.setProperty("outbox-relay.jdbc.log.level", "ERROR");
    }
    System.exit(execute(args));
  }

  /** The operator commands. */
  private static final Set<String> ADMIN_COMMANDS = Set.of("status", "dead", "position", "handoff");

  /**
   * Runs the command line without exiting.
   *
   * @param args the arguments
   * @return the exit code
   */
  public static int execute(String... args) {
    return commandLine(args).execute(args);
  }

  /**
   * Runs the command line without exiting, its output and errors (usage, configuration problems, an
   * operator command's answer) to the given writers; log lines go where the logging configuration
   * sends them. {@code run} stops gracefully when this thread is interrupted, as on SIGTERM.
   *
   * @param out where the command's output goes
   * @param err where its errors go
   * @param args the arguments
   * @return the exit code
   */
  public static int execute(PrintWriter out, PrintWriter err, String... args) {
    CommandLine cli = commandLine(args);
    cli.setOut(out);
    cli.setErr(err);
    return cli.execute(args);
  }

  /** The command line, ready to execute; tests set its output and error writers. */
  static CommandLine commandLine() {
    return configured(new CommandLine(new OutboxRelayCli()));
  }

  /**
   * The command line for these arguments. {@code run} gets a root that holds the run command alone,
   * which parses, helps and fails exactly as the whole tree does for it: picocli reads the
   * annotations of every command it is given, and reading the operator commands' too cost 50–90 ms
   * of the relay's start.
   */
  static CommandLine commandLine(String... args) {
    if (args.length > 0 && args[0].equals("run")) {
      CommandLine root = new CommandLine(CommandSpec.create().name(NAME));
      root.addSubcommand(new RunCommand());
      return configured(root);
    }
    return commandLine();
  }

  private static CommandLine configured(CommandLine cli) {
    cli.setCaseInsensitiveEnumValuesAllowed(true);
    // What the commands do not handle is a bug: one line, and the stack trace at DEBUG.
    cli.setExecutionExceptionHandler(
        (e, commandLine, parseResult) -> {
          // Looked up here, not in a static field: main chooses the log target before anything
          // logs.
          Logger log = LoggerFactory.getLogger(OutboxRelayCli.class);
          log.error(
              "failed unexpectedly: {} (JAVA_OPTS=-Doutbox.relay.log.level=DEBUG shows the stack"
                  + " trace)",
              e.toString());
          log.debug("stack trace of the failure above", e);
          return ExitCodes.FAILURE;
        });
    return cli;
  }

  @Override
  public Integer call() {
    spec.commandLine().usage(spec.commandLine().getErr());
    return ExitCodes.CONFIG;
  }
}
