package io.outboxrelay.relay.testing;

import io.outboxrelay.relay.cli.OutboxRelayCli;
import java.io.PrintWriter;
import java.io.StringWriter;
import picocli.CommandLine;

/** Runs {@code outbox-relay <args>} in this JVM and captures what it prints. */
public final class Cli {

  /**
   * What a command did.
   *
   * @param exitCode the exit code
   * @param out its standard output
   * @param err its standard error
   */
  public record Result(int exitCode, String out, String err) {
    /** For assertion messages. */
    @Override
    public String toString() {
      return "exit " + exitCode + "\n--- out:\n" + out + "--- err:\n" + err;
    }
  }

  private Cli() {}

  /**
   * Runs the command line as {@code bin/outbox-relay} would, without exiting.
   *
   * @param args the arguments
   * @return the exit code and output
   */
  public static Result run(String... args) {
    CommandLine cli = new CommandLine(new OutboxRelayCli());
    cli.setCaseInsensitiveEnumValuesAllowed(true);
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    cli.setOut(new PrintWriter(out, true));
    cli.setErr(new PrintWriter(err, true));
    int code = cli.execute(args);
    return new Result(code, out.toString(), err.toString());
  }
}
