package io.outboxrelay.relay.admin;

import static org.assertj.core.api.Assertions.assertThat;

import io.outboxrelay.relay.testing.Cli;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The operator commands' arguments and exit codes without a database: a bad argument is one line
 * and exit 2 before anything is reached; a database that is not there is exit 1, a host that does
 * not exist exit 2.
 */
class AdminCommandLineTest {

  @TempDir Path dir;

  private Path config(String mode, String host, int port) throws IOException {
    return Files.writeString(
        dir.resolve(mode + ".properties"),
        String.join(
            "\n",
            "mode=" + mode,
            "relay.name=orders",
            "source.flavor=mariadb",
            "source.host=" + host,
            "source.port=" + port,
            "source.database=app",
            "source.user=relay",
            "source.password=secret-pw",
            "source.connect.timeout=2s",
            "kafka.bootstrap.servers=127.0.0.1:9",
            "cdc.server.id=4242",
            ""));
  }

  /** A port nothing listens on. */
  private static int closedPort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }

  private static void assertOneLineUsageError(Cli.Result r, String expected) {
    assertThat(r.exitCode()).as(r.toString()).isEqualTo(2);
    assertThat(r.out()).as(r.toString()).isEmpty();
    assertThat(r.err().strip()).as(r.toString()).doesNotContain("\n").contains(expected);
  }

  @Test
  void rejectsBadFiltersAndIdsWithOneLineBeforeReachingTheDatabase() throws Exception {
    String config = config("polling", "127.0.0.1", closedPort()).toString();
    assertOneLineUsageError(
        Cli.run("dead", "list", "--config", config, "--since", "yesterday"),
        "dead list: --since 'yesterday' is neither a duration");
    // Durations are read by the configuration's parser and bounded: none overflows later.
    assertOneLineUsageError(
        Cli.run("dead", "list", "--config", config, "--since", "99999999999d"),
        "dead list: --since: '99999999999d' is longer than 36500d, the longest duration an option"
            + " takes (or give a time");
    assertOneLineUsageError(
        Cli.run("dead", "list", "--config", config, "--since", "9999999999999999999d"),
        "dead list: --since: '9999999999999999999d' is out of range");
    assertOneLineUsageError(
        Cli.run(
            "handoff",
            "--config",
            config,
            "--mode",
            "cdc",
            "--to",
            "polling",
            "--open-transactions",
            "99999999999d"),
        "--open-transactions: '99999999999d' is longer than 36500d");
    assertOneLineUsageError(
        Cli.run("dead", "list", "--config", config, "--limit", "0"),
        "--limit '0' is not a whole number from 1 to 100000");
    assertOneLineUsageError(
        Cli.run("dead", "show", "--config", config, "-5"), "'-5' is not a row id");
    assertOneLineUsageError(
        Cli.run("dead", "requeue", "--config", config), "say which DEAD events");
    assertOneLineUsageError(
        Cli.run("dead", "requeue", "--config", config, "7", "--event-type", "OrderPaid"),
        "give event ids or a filter");
    assertOneLineUsageError(
        Cli.run("dead", "skip", "--config", config, "7"), "--reason is required");
    assertOneLineUsageError(
        Cli.run("position", "reset", "--config", config, "--yes"), "say where to: --to-current");
  }

  @Test
  void refusesThePositionCommandsForAPollingConfiguration() throws Exception {
    String config = config("polling", "127.0.0.1", closedPort()).toString();
    assertOneLineUsageError(
        Cli.run("position", "show", "--config", config),
        "the position commands are for CDC mode, and this configuration is in polling mode:"
            + " add --mode cdc");
  }

  @Test
  void refusesAHandoffWithoutCdcSettingsOrATargetBeforeReachingTheDatabase() throws Exception {
    String polling = config("polling", "127.0.0.1", closedPort()).toString();
    assertOneLineUsageError(
        Cli.run("handoff", "--config", polling, "--to", "cdc"),
        "handoff needs the CDC settings (offsets, schema history and lease tables): run it with"
            + " the CDC relay's configuration, or add --mode cdc");
    String cdc = config("cdc", "127.0.0.1", closedPort()).toString();
    assertOneLineUsageError(
        Cli.run("handoff", "--config", cdc, "--to", "polling", "--open-transactions", "soon"),
        "--open-transactions:");
    Cli.Result noTarget = Cli.run("handoff", "--config", cdc);
    assertThat(noTarget.exitCode()).as(noTarget.toString()).isEqualTo(2);
    assertThat(noTarget.err()).contains("Missing required option: '--to=MODE'");
  }

  @Test
  void exitsWithOneWhenTheDatabaseIsNotThereAndTwoWhenItsHostDoesNotExist() throws Exception {
    Cli.Result down =
        Cli.run("status", "--config", config("polling", "127.0.0.1", closedPort()).toString());
    assertThat(down.exitCode()).as(down.toString()).isEqualTo(1);
    assertThat(down.err().strip())
        .doesNotContain("\n")
        .startsWith("outbox-relay status: cannot connect to mariadb 127.0.0.1:")
        .contains("Check that the database is up and reachable")
        .doesNotContain("secret-pw");

    Cli.Result unknown =
        Cli.run(
            "dead", "list", "--config", config("polling", "no-such-host.invalid", 3306).toString());
    assertThat(unknown.exitCode()).as(unknown.toString()).isEqualTo(2);
    assertThat(unknown.err().strip())
        .doesNotContain("\n")
        .contains("unknown host 'no-such-host.invalid': check source.host");
  }

  @Test
  void printsUsageForAGroupWithoutASubcommand() {
    Cli.Result r = Cli.run("dead");
    assertThat(r.exitCode()).isEqualTo(2);
    assertThat(r.err()).contains("list", "show", "requeue", "skip");
  }
}
