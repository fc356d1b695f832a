package io.outboxrelay.relay.cli;

import io.outboxrelay.relay.config.RelayConfig;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * {@code outbox-relay validate}: checks a configuration and prints it, secrets hidden; notices and
 * warnings go to standard error.
 */
@Command(
    name = "validate",
    mixinStandardHelpOptions = true,
    description =
        "Check a configuration file and print the effective configuration (secrets hidden).")
final class ValidateCommand implements Callable<Integer> {

  @Mixin ConfigOptions options;

  @Spec CommandSpec spec;

  @Override
  public Integer call() {
    RelayConfig config = options.load(spec.commandLine().getErr());
    if (config == null) {
      return ExitCodes.CONFIG;
    }
    config.notices().forEach(n -> spec.commandLine().getErr().println(n));
    config.warnings().forEach(w -> spec.commandLine().getErr().println("warning: " + w));
    spec.commandLine().getErr().flush();
    spec.commandLine().getOut().print(config.describe());
    spec.commandLine().getOut().flush();
    return ExitCodes.OK;
  }
}
