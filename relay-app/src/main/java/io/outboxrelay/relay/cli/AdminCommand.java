package io.outboxrelay.relay.cli;

import io.outboxrelay.relay.admin.AdminException;
import io.outboxrelay.relay.config.RelayConfig;
import io.outboxrelay.relay.config.RelayMode;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * An operator command over the relay's database ({@code status}, {@code dead ...}, {@code position
 * ...}): loads the configuration as {@code run} does, runs, and turns a failure into one line on
 * standard error and the exit code of {@code run} (2 for bad arguments, configuration or database
 * setup, 1 for a runtime failure). The answer goes to standard output, logs to standard error.
 */
abstract class AdminCommand implements Callable<Integer> {

  @Mixin ConfigOptions options;

  @Spec CommandSpec spec;

  /** Runs the command against a loaded configuration. */
  abstract void run(RelayConfig config, PrintWriter out) throws AdminException;

  /** Checks the arguments before anything is read, so a bad one costs no connection. */
  void checkArguments() throws AdminException {}

  /**
   * Whether the command knows CDC on PostgreSQL (its replication slot, not a binlog); the others
   * refuse such a configuration rather than read binlog state that is not there.
   */
  boolean knowsPostgresCdc() {
    return false;
  }

  @Override
  public final Integer call() {
    PrintWriter err = spec.commandLine().getErr();
    try {
      checkArguments();
      RelayConfig config = options.load(err);
      if (config == null) {
        return ExitCodes.CONFIG;
      }
      if (config.mode() == RelayMode.CDC
          && !config.source().flavor().readsBinlog()
          && !knowsPostgresCdc()) {
        throw AdminException.usage(
            "does not support CDC on "
                + config.source().flavor().name().toLowerCase(java.util.Locale.ROOT)
                + " yet (docs/postgresql.md says what does); the relay's position is its row in "
                + config.cdc().offsetsTable()
                + " and its replication slot's confirmed_flush_lsn (pg_replication_slots)");
      }
      run(config, spec.commandLine().getOut());
      return ExitCodes.OK;
    } catch (AdminException e) {
      err.println(spec.qualifiedName() + ": " + e.getMessage());
      err.flush();
      return e.exitCode();
    }
  }
}
