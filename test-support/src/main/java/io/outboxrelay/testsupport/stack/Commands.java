package io.outboxrelay.testsupport.stack;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Runs short external commands ({@code kill -STOP}, {@code mariadb -e}, {@code mariadb-install-db})
 * to completion and collects their output. Stateless and thread-safe.
 */
final class Commands {

  private Commands() {}

  /**
   * The outcome of a command.
   *
   * @param exitCode the exit code
   * @param output stdout and stderr, interleaved
   */
  record Result(int exitCode, String output) {
    boolean succeeded() {
      return exitCode == 0;
    }
  }

  /**
   * Runs a command and waits for it.
   *
   * @param command the program and its arguments
   * @param timeout how long to wait before the command is killed
   * @return the exit code and output
   * @throws LocalStackException if the command cannot be started or does not finish in time
   */
  static Result run(List<String> command, Duration timeout) {
    Path output = null;
    try {
      // Output goes to a file rather than a pipe: a chatty command cannot block on a full pipe.
      output = Files.createTempFile("local-stack-cmd", ".out");
      Process process =
          new ProcessBuilder(command)
              .redirectErrorStream(true)
              .redirectOutput(output.toFile())
              .redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile()))
              .start();
      if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
        process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
        throw new LocalStackException(
            "command did not finish within " + timeout + ": " + String.join(" ", command));
      }
      return new Result(process.exitValue(), Files.readString(output, StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new LocalStackException("cannot run " + String.join(" ", command) + ": " + e, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new LocalStackException("interrupted while running " + command.get(0), e);
    } finally {
      if (output != null) {
        try {
          Files.deleteIfExists(output);
        } catch (IOException ignored) {
          // a leftover temp file is harmless
        }
      }
    }
  }

  /**
   * Runs a command and fails unless it exits with 0.
   *
   * @param command the program and its arguments
   * @param timeout how long to wait
   * @return the output
   * @throws LocalStackException if the command fails, with its output
   */
  static String runOrFail(List<String> command, Duration timeout) {
    Result result = run(command, timeout);
    if (!result.succeeded()) {
      throw new LocalStackException(
          String.join(" ", command)
              + " exited with code "
              + result.exitCode()
              + ":\n"
              + result.output().strip());
    }
    return result.output();
  }
}
