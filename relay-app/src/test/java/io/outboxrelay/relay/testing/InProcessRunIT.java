package io.outboxrelay.relay.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.outboxrelay.testsupport.outbox.OutboxDatabase;
import io.outboxrelay.testsupport.outbox.RelaySettings;
import io.outboxrelay.testsupport.stack.ChildProcess;
import io.outboxrelay.testsupport.stack.LocalStack;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the relay's tests rely on when they run the relay in their own JVM: each run's log holds its
 * own lines only, while another runs beside it; an interrupt stops it as SIGTERM does; and the
 * JVM's signal handling is as before, so that child processes started afterwards still end on
 * SIGTERM.
 */
class InProcessRunIT {

  @TempDir Path dir;

  private static RelaySettings polling(OutboxDatabase db, String name) {
    return RelaySettings.polling(db, LocalStack.shared().kafka().bootstrapServers(), name)
        .with("polling.interval", "50ms");
  }

  @Test
  void twoRunsAtOnceKeepTheirOwnLogsAndStopOnTerminateAsOnSigterm() throws Exception {
    try (OutboxDatabase a = OutboxDatabase.forPolling();
        OutboxDatabase b = OutboxDatabase.forPolling();
        InProcessRuns runs = new InProcessRuns()) {
      InProcessRun first =
          runs.run(
              "first", dir, polling(a, "run-a").writeTo(dir.resolve("a.properties")).toString());
      InProcessRun second =
          runs.run(
              "second", dir, polling(b, "run-b").writeTo(dir.resolve("b.properties")).toString());
      first.awaitReady();
      second.awaitReady();

      first.terminate();
      assertThat(first.waitFor(Duration.ofSeconds(60))).as(first.log()).isZero();
      assertThat(first.isAlive()).isFalse();
      assertThat(second.isAlive()).as("the other run goes on").isTrue();
      second.terminate();
      assertThat(second.waitFor(Duration.ofSeconds(60))).as(second.log()).isZero();

      for (InProcessRun run : List.of(first, second)) {
        String own = run == first ? "name=run-a" : "name=run-b";
        String other = run == first ? "name=run-b" : "name=run-a";
        assertThat(run.log())
            .as(run.log())
            .contains("[relay mode=polling " + own + "] ready: ")
            .contains("[relay mode=polling " + own + "] stop requested")
            .contains("[relay mode=polling " + own + "] stopped")
            .doesNotContain(other)
            .doesNotContain(" InProcessRun - "); // this JVM's own lines are not the run's
        assertThat(run.stackTraceLines()).as(run.log()).isEmpty();
        assertThat(Files.readString(dir.resolve(run.name() + ".log"))).isEqualTo(run.log());
      }
    }
  }

  /**
   * Two relays of one name in one JVM would share its JMX metrics, from which a relay reads its
   * reader's lag and readiness: refused, and the name is free again once the first run ended.
   */
  @Test
  void aSecondRunOfTheSameRelayNameIsRefusedWhileTheFirstRuns() throws Exception {
    try (OutboxDatabase db = OutboxDatabase.forPolling()) {
      Path one = polling(db, "run-d").writeTo(dir.resolve("d1.properties"));
      Path two = polling(db, "run-d").writeTo(dir.resolve("d2.properties"));
      try (InProcessRun first = InProcessRun.run("first", dir, one)) {
        assertThatThrownBy(
                () -> InProcessRun.start("second", dir, "run", "--config", two.toString()))
            .isInstanceOf(IllegalStateException.class)
            .hasMessageContaining("relay.name 'run-d' already runs in this JVM");
        first.terminate();
        assertThat(first.waitFor(Duration.ofSeconds(60))).as(first.log()).isZero();
      }
      try (InProcessRun again = InProcessRun.run("again", dir, two)) {
        again.terminate();
        assertThat(again.waitFor(Duration.ofSeconds(60))).as(again.log()).isZero();
      }
    }
  }

  @Test
  void aRunThatEndsByItselfReportsItsExitCodeAndWhatItPrinted() throws Exception {
    Path config = dir.resolve("bad.properties");
    Files.writeString(config, "source.port=not-a-port\n");

    InProcessRun run = InProcessRun.start("bad", dir, "run", "--config", config.toString());

    assertThat(run.waitFor(Duration.ofSeconds(30))).as(run.log()).isEqualTo(2);
    assertThat(run.log()).contains("source.port: 'not-a-port' is not an integer");
  }

  /**
   * Regression: reading the JVM's TERM handler by setting {@code SIG_IGN} for a moment left SIGTERM
   * ignored in every child process started afterwards, even once the handler was put back: test
   * brokers then needed a SIGKILL after 30 s.
   */
  @Test
  void childProcessesStartedAfterARunStillEndOnSigterm() throws Exception {
    try (OutboxDatabase db = OutboxDatabase.forPolling();
        InProcessRun run =
            InProcessRun.run(
                "before-child", dir, polling(db, "run-c").writeTo(dir.resolve("c.properties")))) {
      run.terminate();
      assertThat(run.waitFor(Duration.ofSeconds(60))).as(run.log()).isZero();
    }
    try (ChildProcess child =
        ChildProcess.builder(List.of("sleep", "600"))
            .name("sleeper")
            .logFile(dir.resolve("sleeper.log"))
            .start()) {
      String ignored =
          Files.readAllLines(Path.of("/proc/" + child.pid() + "/status")).stream()
              .filter(l -> l.startsWith("SigIgn:"))
              .findFirst()
              .orElseThrow();
      long mask = Long.parseLong(ignored.substring("SigIgn:".length()).trim(), 16);
      assertThat(mask & (1L << (15 - 1))).as("SIGTERM ignored: %s", ignored).isZero();
      child.terminate();
      await().atMost(Duration.ofSeconds(10)).until(() -> !child.isAlive());
    }
  }
}
