package io.outboxrelay.relay.admin;

import static org.assertj.core.api.Assertions.assertThat;

import io.outboxrelay.testsupport.outbox.OutboxDatabase;
import io.outboxrelay.testsupport.outbox.SourceDatabase;
import io.outboxrelay.testsupport.stack.ProjectFiles;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The operator commands on a private MariaDB 10.11. */
class MariaDbAdminCommandsIT extends AbstractAdminCommandsIT {

  @Override
  protected SourceDatabase newDatabase() {
    return OutboxDatabase.forPolling();
  }

  @Test
  void theDistributionPrintsTheAnswerOnStandardOutputAndLogsWhoChangedWhatOnStandardError()
      throws Exception {
    Path stdout = dir.resolve("skip.out");
    Path stderr = dir.resolve("skip.err");
    ProcessBuilder pb =
        new ProcessBuilder(
                List.of(
                    ProjectFiles.relayLauncher().toString(),
                    "dead",
                    "skip",
                    "--config",
                    config,
                    dead.eventId(),
                    "--reason",
                    "refunded by hand"))
            .redirectOutput(stdout.toFile())
            .redirectError(stderr.toFile());
    pb.environment().put("OUTBOX_RELAY_HEAP", "64m");
    pb.environment().put("SUDO_USER", "alice");
    Process p = pb.start();
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    String out = Files.readString(stdout, StandardCharsets.UTF_8);
    String err = Files.readString(stderr, StandardCharsets.UTF_8);
    assertThat(p.exitValue()).as(out + err).isZero();
    String who = System.getProperty("user.name") + " (sudo by alice)";
    assertThat(out).startsWith("skipped 1 event in outbox_events").doesNotContain(" INFO ");
    assertThat(err)
        .contains(
            "INFO ",
            "operator " + who + " skipped 1 DEAD event(s) in outbox_events on " + describe(),
            "ids [" + id(dead) + "]; reason: refunded by hand");
    assertThat(status(dead)).isEqualTo("SKIPPED");
  }
}
