package io.outboxrelay.relay.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;

/**
 * Runs Prometheus's {@code promtool} (Debian package {@code prometheus}, installed by {@code
 * scripts/ensure-prereqs.sh}). Where it is not installed the check is skipped with a WARN saying
 * so.
 */
final class Promtool {

  private Promtool() {}

  /** promtool on the PATH, or null. */
  static Path find() {
    String path = System.getenv("PATH");
    if (path == null) {
      return null;
    }
    for (String dir : path.split(File.pathSeparator)) {
      Path p = Path.of(dir, "promtool");
      if (p.toFile().canExecute()) {
        return p;
      }
    }
    return null;
  }

  /** {@code promtool check metrics} on the text: exit 0 and nothing to say. */
  static void assertCleanMetrics(String text, Logger log) throws Exception {
    Path promtool = find();
    if (promtool == null) {
      log.warn("SKIPPED promtool check metrics: promtool is not on PATH (see ensure-prereqs.sh)");
      return;
    }
    Process p =
        new ProcessBuilder(promtool.toString(), "check", "metrics")
            .redirectErrorStream(true)
            .start();
    p.getOutputStream().write(text.getBytes(StandardCharsets.UTF_8));
    p.getOutputStream().close();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
    assertThat(out).as("promtool check metrics on:\n" + text).isBlank();
    assertThat(p.exitValue()).as(out).isZero();
  }

  /** Runs promtool with the arguments; returns exit code and output. */
  static Result run(List<String> args) throws Exception {
    Path promtool = find();
    List<String> command = new java.util.ArrayList<>();
    command.add(promtool.toString());
    command.addAll(args);
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
    return new Result(p.exitValue(), out);
  }

  record Result(int exitCode, String output) {}
}
