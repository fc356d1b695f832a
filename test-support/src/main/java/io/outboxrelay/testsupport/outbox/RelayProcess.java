package io.outboxrelay.testsupport.outbox;

import io.outboxrelay.testsupport.stack.ChildProcess;
import io.outboxrelay.testsupport.stack.ProjectFiles;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * The relay as a child process, started from the built distribution ({@code bin/outbox-relay})
 * exactly as users run it, so tests can SIGKILL, SIGTERM or SIGSTOP it.
 */
public final class RelayProcess implements RelayRun {

  private final ChildProcess process;

  private RelayProcess(ChildProcess process) {
    this.process = process;
  }

  /**
   * Starts {@code outbox-relay <args>} with a 256 MiB heap.
   *
   * @param name a name for the log file
   * @param logDir where the log goes
   * @param args the command-line arguments
   * @return the running process
   */
  public static RelayProcess start(String name, Path logDir, String... args) {
    return start(name, logDir, Map.of(), args);
  }

  /**
   * Starts {@code outbox-relay <args>} with extra environment variables (e.g. {@code JAVA_OPTS},
   * {@code OUTBOX_RELAY_HEAP}).
   *
   * @param name a name for the log file
   * @param logDir where the log goes
   * @param env environment variables added to the child's
   * @param args the command-line arguments
   * @return the running process
   */
  public static RelayProcess start(
      String name, Path logDir, Map<String, String> env, String... args) {
    return start(ProjectFiles.relayLauncher(), name, logDir, env, args);
  }

  /**
   * Starts {@code <launcher> <args>} from another copy of the distribution (e.g. {@code
   * dist.tar.gz} unpacked elsewhere).
   *
   * @param launcher that copy's {@code bin/outbox-relay}
   * @param name a name for the log file
   * @param logDir where the log goes
   * @param env environment variables added to the child's
   * @param args the command-line arguments
   * @return the running process
   */
  public static RelayProcess start(
      Path launcher, String name, Path logDir, Map<String, String> env, String... args) {
    List<String> command = new java.util.ArrayList<>();
    command.add(launcher.toString());
    command.addAll(List.of(args));
    ChildProcess.Builder builder =
        ChildProcess.builder(command)
            .name(name)
            .logFile(logDir.resolve(name + ".log"))
            .environment("OUTBOX_RELAY_HEAP", "256m");
    env.forEach(builder::environment);
    return new RelayProcess(builder.start());
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

  @Override
  public String name() {
    return process.name();
  }

  @Override
  public void awaitReady() {
    process.awaitLogLine(".*\\] ready: .*", Duration.ofSeconds(90));
  }

  /** The child process. */
  public ChildProcess process() {
    return process;
  }

  @Override
  public String awaitLogLine(String regex, Duration timeout) {
    return process.awaitLogLine(regex, timeout);
  }

  @Override
  public String log() {
    return process.logTail(100_000);
  }

  /** Sends SIGTERM. */
  @Override
  public void terminate() {
    process.terminate();
  }

  @Override
  public boolean isAlive() {
    return process.isAlive();
  }

  /**
   * Waits for the process to exit.
   *
   * @param timeout how long to wait
   * @return the exit code (128 + the signal's number when a signal ended it)
   */
  @Override
  public int waitFor(Duration timeout) {
    return process.waitFor(timeout);
  }

  @Override
  public void close() {
    process.close();
  }
}
