package io.outboxrelay.relay.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * The command line that {@code run} gets (its own command alone, for a shorter start) against the
 * whole tree: the same help, the same usage errors, the same configuration errors.
 */
class OutboxRelayCliTest {

  @TempDir Path dir;

  private record Result(int exit, String out, String err) {}

  private static Result execute(CommandLine cli, String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    cli.setOut(new PrintWriter(out));
    cli.setErr(new PrintWriter(err));
    int exit = cli.execute(args);
    return new Result(exit, out.toString(), err.toString());
  }

  private static void behavesAsTheWholeTree(String... args) {
    Result lean = execute(OutboxRelayCli.commandLine(args), args);
    Result whole = execute(OutboxRelayCli.commandLine(), args);
    assertThat(lean).isEqualTo(whole);
  }

  @Test
  void runGetsItsOwnCommandAlone() {
    CommandLine lean = OutboxRelayCli.commandLine("run", "--config", "x");
    assertThat(lean.getSubcommands()).containsOnlyKeys("run");
    assertThat(lean.getCommandName()).isEqualTo("outbox-relay");
    assertThat(OutboxRelayCli.commandLine("validate").getSubcommands())
        .containsKeys("run", "validate", "status", "dead", "position", "handoff");
  }

  @Test
  void runHelpsAsTheWholeTreeDoes() {
    Result help = execute(OutboxRelayCli.commandLine("run", "--help"), "run", "--help");
    assertThat(help.exit()).isZero();
    assertThat(help.out()).startsWith("Usage: outbox-relay run ").contains("--config");
    behavesAsTheWholeTree("run", "--help");
  }

  @Test
  void runRefusesBadUsageAsTheWholeTreeDoes() {
    String[] args = {"run", "--config", "x", "--no-such-option"};
    Result bad = execute(OutboxRelayCli.commandLine(args), args);
    assertThat(bad.exit()).isEqualTo(ExitCodes.CONFIG);
    assertThat(bad.err())
        .contains("Unknown option: '--no-such-option'")
        .contains("Usage: outbox-relay run");
    behavesAsTheWholeTree(args);
    behavesAsTheWholeTree("run");
    behavesAsTheWholeTree("run", "--version");
  }

  @Test
  void runRefusesBadConfigurationAsTheWholeTreeDoes() throws IOException {
    Path file = dir.resolve("relay.properties");
    Files.writeString(file, "source.port=not-a-port\nmode=polling\n");
    Result bad =
        execute(
            OutboxRelayCli.commandLine("run", "--config", file.toString()),
            "run",
            "--config",
            file.toString());
    assertThat(bad.exit()).isEqualTo(ExitCodes.CONFIG);
    assertThat(bad.err()).contains("source.port");
    behavesAsTheWholeTree("run", "--config", file.toString());
  }
}
