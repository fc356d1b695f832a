package io.outboxrelay.relay.testing;

import io.outboxrelay.localstack.ChildProcess;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * The relay as a child process, started from the built distribution ({@code bin/outbox-relay})
 * exactly as users run it, so tests can SIGKILL, SIGTERM or SIGSTOP it.
 */
public final class RelayProcess implements AutoCloseable {

  private final ChildProcess process;

  private RelayProcess(ChildProcess process) {
    this.process = process;
  }

  /**
   * Starts {@code outbox-relay <args>}.
   *
   * @param name a name for the log file
   * @param logDir where the log goes
   * @param args the command-line arguments
   * @return the running process
   */
  public static RelayProcess start(String name, Path logDir, String... args) {
    List<String> command = new java.util.ArrayList<>();
    command.add(ProjectFiles.relayLauncher().toString());
    command.addAll(List.of(args));
    ChildProcess p =
        ChildProcess.builder(command)
            .name(name)
            .logFile(logDir.resolve(name + ".log"))
            .environment("OUTBOX_RELAY_HEAP", "256m")
            .start();
    return new RelayProcess(p);
  }

  /**
   * Starts {@code outbox-relay run --config <file>} and waits until it reports ready.
   *
   * @param name a name for the log file
   * @param logDir where the log goes
   * @param config the properties file
   * @return the ready process
   */
  public static RelayProcess run(String name, Path logDir, Path config) {
    RelayProcess p = start(name, logDir, "run", "--config", config.toString());
    p.awaitReady();
    return p;
  }

  /** Waits for the ready line. */
  public void awaitReady() {
    process.awaitLogLine(".*\\] ready: .*", Duration.ofSeconds(90));
  }

  /** The child process. */
  public ChildProcess process() {
    return process;
  }

  /** The whole log so far. */
  public String log() {
    return process.logTail(100_000);
  }

  /**
   * Waits for the process to exit.
   *
   * @param timeout how long to wait
   * @return the exit code
   */
  public int waitFor(Duration timeout) {
    return process.waitFor(timeout);
  }

  @Override
  public void close() {
    process.close();
  }
}
