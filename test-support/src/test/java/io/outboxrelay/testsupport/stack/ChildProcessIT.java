package io.outboxrelay.testsupport.stack;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ChildProcessIT {

  @TempDir Path dir;

  @Test
  void awaitLogLineReturnsTheFirstMatchingLineAndSigtermEndsTheProcess() {
    try (ChildProcess child =
        bash("echo starting; sleep 0.2; echo 'ready on port 42'; exec sleep 30")) {

      assertThat(child.awaitLogLine("ready on port \\d+", Duration.ofSeconds(10)))
          .isEqualTo("ready on port 42");

      child.terminate();
      assertThat(child.waitFor(Duration.ofSeconds(10))).isEqualTo(128 + 15);
      assertThat(child.isAlive()).isFalse();
    }
  }

  @Test
  void awaitLogLineFailsWithTheLogTailWhenTheProcessExitsFirst() {
    try (ChildProcess child = bash("echo boom; exit 3")) {

      assertThatThrownBy(() -> child.awaitLogLine("never", Duration.ofSeconds(10)))
          .isInstanceOf(LocalStackException.class)
          .hasMessageContaining("exited with code 3")
          .hasMessageContaining("boom");
    }
  }

  @Test
  void awaitLogLineFailsWithTheLogTailOnTimeout() {
    try (ChildProcess child = bash("echo waiting; exec sleep 30")) {

      assertThatThrownBy(() -> child.awaitLogLine(line -> false, Duration.ofMillis(300)))
          .isInstanceOf(LocalStackException.class)
          .hasMessageContaining("did not appear within PT0.3S")
          .hasMessageContaining("waiting");
    }
  }

  @Test
  void awaitLogLineIgnoresLinesOfEarlierRunsInTheSameLogFile() {
    Path log = dir.resolve("shared.log");
    try (ChildProcess first = bash(log, "echo ready")) {
      first.waitFor(Duration.ofSeconds(10));
    }
    try (ChildProcess second = bash(log, "echo starting; exec sleep 30")) {

      assertThatThrownBy(() -> second.awaitLogLine("ready", Duration.ofMillis(300)))
          .isInstanceOf(LocalStackException.class);
      assertThat(second.logTail(2)).isEqualTo("ready\nstarting");
    }
  }

  @Test
  void stopKillsAProcessThatIgnoresSigterm() {
    try (ChildProcess child = bash("trap '' TERM; echo armed; exec sleep 30")) {
      child.awaitLogLine("armed", Duration.ofSeconds(10));

      assertThat(child.stop(Duration.ofMillis(300))).isEqualTo(128 + 9);
    }
  }

  @Test
  void pauseFreezesTheProcessUntilResume() throws IOException {
    try (ChildProcess child = bash("while true; do echo tick; sleep 0.05; done")) {
      child.awaitLogLine("tick", Duration.ofSeconds(10));

      child.pause();
      await().atMost(Duration.ofSeconds(5)).until(() -> processState(child.pid()) == 'T');
      long frozenSize = Files.size(child.logFile());
      await()
          .during(Duration.ofMillis(300))
          .atMost(Duration.ofSeconds(2))
          .until(() -> Files.size(child.logFile()) == frozenSize);

      child.resume();
      await().atMost(Duration.ofSeconds(5)).until(() -> Files.size(child.logFile()) > frozenSize);
    }
  }

  @Test
  void javaCommandStartsAChildJvmWithTheGivenMaxHeap() {
    List<String> command =
        ChildProcess.javaCommand(
            "64m", System.getProperty("java.class.path"), MaxHeapPrinter.class.getName(), "a", "b");

    assertThat(command.get(0)).isEqualTo(ChildProcess.javaExecutable().toString());
    assertThat(command).contains("-Xmx64m");
    try (ChildProcess child =
        ChildProcess.builder(command).name("printer").logFile(dir.resolve("printer.log")).start()) {
      String line = child.awaitLogLine("max-heap-mib=", Duration.ofSeconds(30));
      assertThat(Integer.parseInt(line.replaceAll(".*max-heap-mib=(\\d+).*", "$1")))
          .isLessThanOrEqualTo(64);
      assertThat(line).endsWith("args=a,b");
      assertThat(child.waitFor(Duration.ofSeconds(30))).isZero();
    }
  }

  private ChildProcess bash(String script) {
    return bash(dir.resolve("child.log"), script);
  }

  private static ChildProcess bash(Path log, String script) {
    return ChildProcess.builder(List.of("bash", "-c", script)).name("bash").logFile(log).start();
  }

  private static char processState(long pid) throws IOException {
    String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
    return stat.charAt(stat.lastIndexOf(')') + 2);
  }
}
