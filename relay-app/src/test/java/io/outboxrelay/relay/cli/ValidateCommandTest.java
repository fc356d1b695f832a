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

/** {@code outbox-relay validate} as an operator runs it: exit codes and what is printed. */
class ValidateCommandTest {

  private static final String MINIMAL =
      String.join(
          "\n",
          "source.host=db.internal",
          "source.database=shop",
          "source.user=outbox_relay",
          "source.password=s3cret-pw",
          "kafka.bootstrap.servers=k1:9092",
          "cdc.server.id=5401",
          "");

  @TempDir Path dir;

  private record Result(int exit, String out, String err) {}

  private Result validate(String properties, String... options) throws IOException {
    Path file = dir.resolve("relay.properties");
    Files.writeString(file, properties);
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    CommandLine cli = OutboxRelayCli.commandLine();
    cli.setOut(new PrintWriter(out));
    cli.setErr(new PrintWriter(err));
    String[] args = new String[options.length + 3];
    args[0] = "validate";
    args[1] = "--config";
    args[2] = file.toString();
    System.arraycopy(options, 0, args, 3, options.length);
    int exit = cli.execute(args);
    return new Result(exit, out.toString(), err.toString());
  }

  @Test
  void aConfigurationFileThatCannotBeReadIsNamedWithTheReason() throws IOException {
    Path directory = Files.createDirectories(dir.resolve("conf.d"));
    StringWriter err = new StringWriter();
    CommandLine cli = OutboxRelayCli.commandLine();
    cli.setOut(new PrintWriter(new StringWriter()));
    cli.setErr(new PrintWriter(err));

    int exit = cli.execute("validate", "--config", directory.toString());

    assertThat(exit).isEqualTo(ExitCodes.CONFIG);
    assertThat(err.toString().strip())
        .isEqualTo("Cannot read configuration file " + directory + ": Is a directory");
  }

  @Test
  void theReasonOfAnUnreadableFileIsSaidInWords() {
    assertThat(
            ConfigOptions.reason(new java.nio.file.AccessDeniedException("/etc/relay.properties")))
        .isEqualTo("permission denied: give the relay's user read access to it");
  }

  @Test
  void overflowingValuesExitWith2AndOneLineEach() throws IOException {
    Result r =
        validate(
            MINIMAL
                + "relay.stats.interval=9223372036854775807h\n"
                + "source.port=99999999999999999999\n"
                + "kafka.bootstrap.servers=k1,k2:9092\n");

    assertThat(r.exit()).isEqualTo(ExitCodes.CONFIG);
    assertThat(r.err().lines())
        .containsExactly(
            "Invalid configuration in " + dir.resolve("relay.properties") + " (3 problems):",
            "  - relay.stats.interval: '9223372036854775807h' is out of range: must be between"
                + " 1s and 1d",
            "  - source.port: '99999999999999999999' is out of range: must be between 1 and 65535",
            "  - kafka.bootstrap.servers: 'k1' has no port: write host:port, e.g. k1:9092",
            "  warning: kafka.bootstrap.servers is given 2 times in "
                + dir.resolve("relay.properties")
                + " (lines 5, 9): the last one counts; remove the others");
    assertThat(r.out()).isEmpty();
  }

  @Test
  void anOverflowingLeaseInPollingModeExitsWith2() throws IOException {
    Result r = validate(MINIMAL + "polling.lease=9223372036854775807s\n", "--mode", "polling");

    assertThat(r.exit()).isEqualTo(ExitCodes.CONFIG);
    assertThat(r.err())
        .contains(
            "  - polling.lease: '9223372036854775807s' is out of range: must be between 2s and"
                + " 1d")
        .doesNotContain("Exception");
  }

  @Test
  void printsThatTheCommandLineModeOverridesTheFile() throws IOException {
    Result r = validate(MINIMAL + "mode=cdc\n", "--mode", "POLLING");

    assertThat(r.exit()).isEqualTo(ExitCodes.OK);
    assertThat(r.err().lines())
        .containsExactly(
            "mode=polling from --mode overrides mode=cdc in " + dir.resolve("relay.properties"));
    assertThat(r.out()).contains("  mode = polling");
  }

  @Test
  void printsWarningsAndStillAcceptsTheConfiguration() throws IOException {
    Result r = validate("\uFEFF" + MINIMAL + "debezium.snapshot.mdoe=initial\n");

    assertThat(r.exit()).isEqualTo(ExitCodes.OK);
    assertThat(r.err().lines())
        .containsExactly(
            "warning: debezium.snapshot.mdoe is not a setting of Debezium's MariaDB connector or"
                + " engine, and Debezium ignores it: did you mean debezium.snapshot.mode?");
    assertThat(r.out()).contains("  debezium.snapshot.mdoe = initial").doesNotContain("s3cret");
  }
}
