package io.outboxrelay.testsupport.stack;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalInt;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A child process whose stdout and stderr are appended to a log file, with the signals fault tests
 * need: {@link #terminate()} (SIGTERM), {@link #kill()} (SIGKILL), {@link #pause()} (SIGSTOP) and
 * {@link #resume()} (SIGCONT).
 *
 * <p>Children still running when the JVM exits are terminated by a shutdown hook (SIGTERM, then
 * SIGKILL after a few seconds), so a test run does not leave servers behind. A JVM killed with
 * SIGKILL cannot do that.
 *
 * <p>Thread-safe: signals and waits may come from any thread.
 */
public final class ChildProcess implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(ChildProcess.class);
  private static final Duration POLL_INTERVAL = Duration.ofMillis(50);
  private static final Duration CLOSE_GRACE = Duration.ofSeconds(15);
  private static final int TAIL_LINES = 40;

  private final String name;
  private final Process process;
  private final Path logFile;
  private final long logStartOffset;

  private ChildProcess(String name, Process process, Path logFile, long logStartOffset) {
    this.name = name;
    this.process = process;
    this.logFile = logFile;
    this.logStartOffset = logStartOffset;
  }

  /**
   * Starts building a child process.
   *
   * @param command the program and its arguments, not empty
   * @return a builder
   */
  public static Builder builder(List<String> command) {
    return new Builder(command);
  }

  /**
   * Builds the command line of a child JVM with the current JVM's {@code java} binary.
   *
   * @param maxHeap the {@code -Xmx} value, e.g. {@code "512m"} (every JVM here must have one)
   * @param classpath the classpath, entries separated by {@code :}
   * @param mainClass the main class
   * @param args program arguments
   * @return the command, ready for {@link #builder(List)}
   */
  public static List<String> javaCommand(
      String maxHeap, String classpath, String mainClass, String... args) {
    return javaCommand(maxHeap, List.of(), classpath, mainClass, List.of(args));
  }

  /**
   * Builds the command line of a child JVM with the current JVM's {@code java} binary.
   *
   * <p>A classpath longer than Linux allows for a single argument (128 KiB) is passed in an
   * argument file ({@code @file}) in the temp directory instead.
   *
   * @param maxHeap the {@code -Xmx} value, e.g. {@code "512m"}
   * @param jvmOptions further JVM options, e.g. {@code -XX:+UseSerialGC} or {@code -Dkey=value}
   * @param classpath the classpath, entries separated by {@code :}
   * @param mainClass the main class
   * @param args program arguments
   * @return the command, ready for {@link #builder(List)}
   */
  public static List<String> javaCommand(
      String maxHeap,
      List<String> jvmOptions,
      String classpath,
      String mainClass,
      List<String> args) {
    Objects.requireNonNull(maxHeap, "maxHeap");
    Objects.requireNonNull(classpath, "classpath");
    Objects.requireNonNull(mainClass, "mainClass");
    List<String> command = new ArrayList<>();
    command.add(javaExecutable().toString());
    command.add("-Xmx" + maxHeap);
    command.addAll(jvmOptions);
    if (classpath.length() > 100_000) {
      command.add("@" + classpathArgumentFile(classpath));
    } else {
      command.add("-cp");
      command.add(classpath);
    }
    command.add(mainClass);
    command.addAll(args);
    return List.copyOf(command);
  }

  /**
   * Returns the {@code java} binary of the running JVM.
   *
   * @return {@code ${java.home}/bin/java}
   */
  public static Path javaExecutable() {
    return Path.of(System.getProperty("java.home"), "bin", "java");
  }

  /** A short name used in log lines and messages, e.g. {@code kafka-broker}. */
  public String name() {
    return name;
  }

  /** The operating-system process id. */
  public long pid() {
    return process.pid();
  }

  /** The file that receives the process's stdout and stderr. */
  public Path logFile() {
    return logFile;
  }

  /** Whether the process is still running (a paused process is running). */
  public boolean isAlive() {
    return process.isAlive();
  }

  /** The exit code, or empty while the process runs. */
  public OptionalInt exitCode() {
    return process.isAlive() ? OptionalInt.empty() : OptionalInt.of(process.exitValue());
  }

  /** Sends SIGTERM (a clean shutdown request). Does nothing if the process has exited. */
  public void terminate() {
    LOG.info("[{} pid={}] sending SIGTERM", name, pid());
    process.destroy();
  }

  /** Sends SIGKILL. Does nothing if the process has exited. */
  public void kill() {
    LOG.info("[{} pid={}] sending SIGKILL", name, pid());
    process.destroyForcibly();
  }

  /**
   * Sends SIGSTOP: the process freezes (no CPU, no network replies) until {@link #resume()}.
   *
   * @throws LocalStackException if the process has exited or the signal could not be sent
   */
  public void pause() {
    signal("STOP");
  }

  /**
   * Sends SIGINT: what a clean shutdown that disconnects its clients first means to some servers
   * (PostgreSQL's fast shutdown).
   *
   * @throws LocalStackException if the process has exited or the signal could not be sent
   */
  public void interrupt() {
    signal("INT");
  }

  /**
   * Sends SIGCONT to a process frozen by {@link #pause()}.
   *
   * @throws LocalStackException if the process has exited or the signal could not be sent
   */
  public void resume() {
    signal("CONT");
  }

  /**
   * Waits for the process to exit.
   *
   * @param timeout how long to wait
   * @return the exit code (128 + signal number when a signal ended it, e.g. 137 for SIGKILL)
   * @throws LocalStackException if the process is still running after the timeout, or the thread
   *     was interrupted (the interrupt flag is restored)
   */
  public int waitFor(Duration timeout) {
    try {
      if (process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
        return process.exitValue();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new LocalStackException("interrupted while waiting for " + name, e);
    }
    throw new LocalStackException(
        name + " (pid " + pid() + ") still running after " + timeout + logTailBlock());
  }

  /**
   * Stops the process: SIGTERM, then SIGKILL if it has not exited within {@code grace}. A paused
   * process is resumed first so that it can handle SIGTERM.
   *
   * @param grace how long the process may take to shut down cleanly
   * @return the exit code
   */
  public int stop(Duration grace) {
    if (!process.isAlive()) {
      return process.exitValue();
    }
    terminate();
    resumeQuietly();
    try {
      return waitFor(grace);
    } catch (LocalStackException stillRunning) {
      LOG.warn("[{} pid={}] did not exit within {} of SIGTERM, killing it", name, pid(), grace);
      kill();
      return waitFor(Duration.ofSeconds(30));
    }
  }

  /**
   * Returns the last lines of the log file (of all runs that appended to it).
   *
   * @param lines how many lines, at least 1
   * @return the lines joined by {@code \n}
   */
  public String logTail(int lines) {
    return LogFiles.tail(logFile, lines);
  }

  /**
   * Waits until this process writes a log line that contains a match of {@code regex}. Only lines
   * written since this process started count.
   *
   * @param regex a {@link Pattern} found anywhere in the line
   * @param timeout how long to wait
   * @return the first matching line
   * @throws LocalStackException on timeout or if the process exits first, with the log tail
   */
  public String awaitLogLine(String regex, Duration timeout) {
    Pattern pattern = Pattern.compile(regex);
    return awaitLogLine(line -> pattern.matcher(line).find(), timeout);
  }

  /**
   * Waits until this process writes a log line that satisfies {@code matcher}. Only lines written
   * since this process started count.
   *
   * @param matcher tests each line, without its line terminator
   * @param timeout how long to wait
   * @return the first matching line
   * @throws LocalStackException on timeout or if the process exits first, with the log tail
   */
  public String awaitLogLine(Predicate<String> matcher, Duration timeout) {
    LogFollower follower = new LogFollower(logFile, logStartOffset);
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      // Read liveness first: lines written just before the exit are still read below.
      boolean alive = process.isAlive();
      for (String line : follower.newLines(!alive)) {
        if (matcher.test(line)) {
          return line;
        }
      }
      if (!alive) {
        throw new LocalStackException(
            name
                + " exited with code "
                + process.exitValue()
                + " before the expected log line appeared"
                + logTailBlock());
      }
      if (System.nanoTime() - deadline > 0) {
        throw new LocalStackException(
            "expected log line of " + name + " did not appear within " + timeout + logTailBlock());
      }
      pauseBriefly();
    }
  }

  /** Stops the process if it still runs: SIGTERM, then SIGKILL after 15 seconds. Idempotent. */
  @Override
  public void close() {
    stop(CLOSE_GRACE);
  }

  @Override
  public String toString() {
    return name + "(pid " + pid() + (process.isAlive() ? ", running)" : ", exited)");
  }

  private void signal(String signal) {
    if (!process.isAlive()) {
      // Its pid may already belong to another process.
      throw new LocalStackException(
          name + " (pid " + pid() + ") has exited; not sending " + signal);
    }
    Commands.Result result =
        Commands.run(List.of("kill", "-" + signal, Long.toString(pid())), Duration.ofSeconds(10));
    if (!result.succeeded()) {
      throw new LocalStackException(
          "kill -" + signal + " " + pid() + " failed: " + result.output().strip());
    }
    LOG.info("[{} pid={}] sent SIG{}", name, pid(), signal);
  }

  private void resumeQuietly() {
    if (process.isAlive()) {
      Commands.run(List.of("kill", "-CONT", Long.toString(pid())), Duration.ofSeconds(10));
    }
  }

  private String logTailBlock() {
    return LogFiles.labelledTail("output of " + name, logFile, TAIL_LINES);
  }

  static void pauseBriefly() {
    try {
      Thread.sleep(POLL_INTERVAL.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new LocalStackException("interrupted while waiting", e);
    }
  }

  private static Path classpathArgumentFile(String classpath) {
    try {
      Path file = Files.createTempFile("local-stack-classpath", ".args");
      file.toFile().deleteOnExit();
      // Quoted so that spaces in paths survive; backslashes are escapes in argument files.
      Files.writeString(file, "-cp \"" + classpath.replace("\\", "\\\\") + "\"\n");
      return file;
    } catch (IOException e) {
      throw new LocalStackException("cannot write a classpath argument file: " + e, e);
    }
  }

  /**
   * Configures and starts a {@link ChildProcess}.
   *
   * <p>Not thread-safe; use from one thread.
   */
  public static final class Builder {

    private final List<String> command;
    private final Map<String, String> environment = new LinkedHashMap<>();
    private String name;
    private Path logFile;
    private Path directory;

    private Builder(List<String> command) {
      if (command.isEmpty()) {
        throw new IllegalArgumentException("command must not be empty");
      }
      this.command = List.copyOf(command);
      this.name = Path.of(command.get(0)).getFileName().toString();
    }

    /**
     * Sets the name used in log lines and messages (default: the program's file name).
     *
     * @param name a short name
     * @return this builder
     */
    public Builder name(String name) {
      this.name = Objects.requireNonNull(name, "name");
      return this;
    }

    /**
     * Sets the file that receives stdout and stderr, appended (default: a new temp file, deleted
     * when the JVM exits).
     *
     * @param logFile the log file; its directory is created if missing
     * @return this builder
     */
    public Builder logFile(Path logFile) {
      this.logFile = Objects.requireNonNull(logFile, "logFile");
      return this;
    }

    /**
     * Sets the working directory (default: the current one).
     *
     * @param directory the working directory
     * @return this builder
     */
    public Builder directory(Path directory) {
      this.directory = Objects.requireNonNull(directory, "directory");
      return this;
    }

    /**
     * Adds an environment variable to the inherited environment.
     *
     * @param key the variable
     * @param value its value
     * @return this builder
     */
    public Builder environment(String key, String value) {
      environment.put(Objects.requireNonNull(key, "key"), Objects.requireNonNull(value, "value"));
      return this;
    }

    /**
     * Starts the process. Its stdin is {@code /dev/null}.
     *
     * @return the running process
     * @throws LocalStackException if the program cannot be started
     */
    public ChildProcess start() {
      try {
        Path log = logFile;
        if (log == null) {
          log = Files.createTempFile(name, ".log");
          log.toFile().deleteOnExit();
        }
        Path parent = log.toAbsolutePath().getParent();
        if (parent != null) {
          Files.createDirectories(parent);
        }
        long offset = Files.exists(log) ? Files.size(log) : 0;
        ProcessBuilder builder =
            new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
                .redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile()));
        if (directory != null) {
          builder.directory(directory.toFile());
        }
        builder.environment().putAll(environment);
        ChildProcess child = new ChildProcess(name, builder.start(), log, offset);
        ChildReaper.track(child.process);
        LOG.info("[{} pid={}] started, output in {}", name, child.pid(), log);
        return child;
      } catch (IOException e) {
        throw new LocalStackException(
            "cannot start " + name + " (" + command.get(0) + "): " + e, e);
      }
    }
  }
}
