package io.outboxrelay.relay.cli;

import java.util.concurrent.Callable;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * A command that only groups subcommands ({@code dead}, {@code position}): run without one, it
 * prints its usage to standard error and exits with the code for bad arguments.
 */
abstract class CommandGroup implements Callable<Integer> {

  @Spec CommandSpec spec;

  @Override
  public final Integer call() {
    spec.commandLine().usage(spec.commandLine().getErr());
    return ExitCodes.CONFIG;
  }
}
