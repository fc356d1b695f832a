package io.outboxrelay.relay.testing;

import static org.assertj.core.api.Assertions.assertThat;

import io.outboxrelay.relay.cli.OutboxRelayCli;
import java.io.PrintWriter;
import java.io.StringWriter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

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

  private static final Logger LOG = LoggerFactory.getLogger(Cli.class);

  private Cli() {}

  /**
   * Runs the command line, logs what it did, and asserts its exit code.
   *
   * @param expectedExit the exit code it must end with
   * @param args the arguments
   * @return the exit code and output
   */
  public static Result expect(int expectedExit, String... args) {
    Result r = run(args);
    LOG.info("outbox-relay {}: {}", String.join(" ", args), r);
    assertThat(r.exitCode()).as(r.toString()).isEqualTo(expectedExit);
    return r;
  }

  /**
   * Runs the command line as {@code bin/outbox-relay} would, without exiting.
   *
   * @param args the arguments
   * @return the exit code and output
   */
  public static Result run(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int code = OutboxRelayCli.execute(new PrintWriter(out, true), new PrintWriter(err, true), args);
    return new Result(code, out.toString(), err.toString());
  }
}
