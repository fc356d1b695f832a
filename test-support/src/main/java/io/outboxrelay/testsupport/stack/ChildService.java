package io.outboxrelay.testsupport.stack;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A server of the local stack that runs as a child process ({@link MariaDbServer}, {@link
 * KafkaBroker}): what their lifecycles share. It starts (again) on the files of its first start,
 * stops cleanly or is killed as a crash would, and on {@link #close()} deletes its directory if it
 * created it. The subclass launches the process and waits until it serves.
 *
 * <p>Thread-safe: lifecycle methods are synchronized.
 *
 * @param <S> the subclass, returned by {@link #start()}
 */
public abstract class ChildService<S extends ChildService<S>> implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(ChildService.class);

  private final String logPrefix;
  private final Path directory;
  private final boolean ownsDirectory;
  private final Duration stopTimeout;
  private ChildProcess process;
  private boolean closed;

  /**
   * @param logPrefix the context prefix of log lines and messages, e.g. {@code [kafka port=9092]}
   * @param directory the service's directory
   * @param ownsDirectory whether close deletes it
   * @param stopTimeout how long a clean shutdown may take before the process is killed
   */
  protected ChildService(
      String logPrefix, Path directory, boolean ownsDirectory, Duration stopTimeout) {
    this.logPrefix = logPrefix;
    this.directory = directory;
    this.ownsDirectory = ownsDirectory;
    this.stopTimeout = stopTimeout;
  }

  /**
   * Prepares the files if needed, launches the process and waits until it serves. Called with the
   * lock held, only when the service is not running.
   *
   * @return the running process
   * @throws LocalStackException if preparation or startup fails or times out, with the tail of the
   *     service's log
   */
  protected abstract ChildProcess launch();

  /** Deletes what the service created besides its directory; called once, on close. */
  protected void deleteOtherFiles() {}

  /**
   * Starts the service; a later start (after {@link #stop()} or {@link #kill()}) reuses its files
   * and ports. Does nothing if it already runs.
   *
   * @return this service
   * @throws LocalStackException if startup fails or times out
   * @throws IllegalStateException if the service was closed
   */
  public final synchronized S start() {
    if (closed) {
      throw new IllegalStateException(logPrefix + " is closed");
    }
    if (!isRunning()) {
      process = launch();
    }
    @SuppressWarnings("unchecked")
    S self = (S) this;
    return self;
  }

  /**
   * Stops the service cleanly (SIGTERM), killing it if it has not exited within the stop timeout.
   * Its files and ports are kept for the next {@link #start()}. Does nothing if it is not running.
   */
  public final synchronized void stop() {
    if (isRunning()) {
      long begin = System.nanoTime();
      process.stop(stopTimeout);
      LOG.info("{} stopped in {} ms", logPrefix, millisSince(begin));
    }
  }

  /**
   * Kills the service with SIGKILL, as a crash would; the next {@link #start()} recovers. Does
   * nothing if it is not running.
   */
  public final synchronized void kill() {
    if (isRunning()) {
      process.kill();
      process.waitFor(Duration.ofSeconds(30));
    }
  }

  /**
   * Stops the service and deletes the directories it created (a directory given to the builder that
   * already existed is kept). Idempotent.
   */
  @Override
  public final synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    stop();
    if (ownsDirectory) {
      Dirs.deleteRecursively(directory);
    }
    deleteOtherFiles();
  }

  /** Whether the process is running (a paused process is running). */
  public final synchronized boolean isRunning() {
    return process != null && process.isAlive();
  }

  /**
   * The process id.
   *
   * @throws IllegalStateException if the service is not running
   */
  public final synchronized long pid() {
    return process().pid();
  }

  /**
   * The running process, for pausing it with SIGSTOP and similar faults.
   *
   * @throws IllegalStateException if the service is not running
   */
  public final synchronized ChildProcess process() {
    if (!isRunning()) {
      throw new IllegalStateException(logPrefix + " is not running");
    }
    return process;
  }

  /** The context prefix of log lines and messages. */
  protected final String logPrefix() {
    return logPrefix;
  }

  @Override
  public String toString() {
    return getClass().getSimpleName() + logPrefix;
  }

  static long millisSince(long nanos) {
    return (System.nanoTime() - nanos) / 1_000_000;
  }

  /**
   * What the builders of child services share: the directory, the timeouts, and a start that cleans
   * up after a failed start.
   *
   * <p>Not thread-safe; use from one thread.
   *
   * @param <B> the builder
   * @param <S> the service it builds
   */
  public abstract static class Builder<B extends Builder<B, S>, S extends ChildService<S>> {

    private Path directory;
    private int port;
    private Duration startupTimeout = Duration.ofSeconds(60);
    private Duration stopTimeout = Duration.ofSeconds(30);

    /** Creates a builder with the default timeouts. */
    protected Builder() {}

    @SuppressWarnings("unchecked")
    private B self() {
      return (B) this;
    }

    /** Sets the directory; see the subclass's setter. */
    final B directory(Path directory, String what) {
      this.directory = Objects.requireNonNull(directory, what).toAbsolutePath();
      return self();
    }

    /**
     * Sets the port clients connect to (default: a free port); it stays the same across restarts.
     *
     * @param port the port
     * @return this builder
     */
    public final B port(int port) {
      this.port = port;
      return self();
    }

    /** The port given, or a free one. */
    final int portOrFree() {
      return port > 0 ? port : FreePorts.findFreePort();
    }

    /**
     * Sets how long preparation plus startup may take (default 60 s).
     *
     * @param startupTimeout the timeout
     * @return this builder
     */
    public final B startupTimeout(Duration startupTimeout) {
      this.startupTimeout = Objects.requireNonNull(startupTimeout, "startupTimeout");
      return self();
    }

    /**
     * Sets how long a clean shutdown may take before the process is killed (default 30 s).
     *
     * @param stopTimeout the timeout
     * @return this builder
     */
    public final B stopTimeout(Duration stopTimeout) {
      this.stopTimeout = Objects.requireNonNull(stopTimeout, "stopTimeout");
      return self();
    }

    /** The startup timeout. */
    final Duration startupTimeout() {
      return startupTimeout;
    }

    /** The stop timeout. */
    final Duration stopTimeout() {
      return stopTimeout;
    }

    /** Whether the service will own (and on close delete) its directory: it does not exist yet. */
    final boolean ownsDirectory() {
      return directory == null || !Files.exists(directory);
    }

    /** The directory given, created if missing, or a fresh temporary one. */
    final Path createDirectory(String tempPrefix) {
      return directory != null ? Dirs.createDirectories(directory) : Dirs.createTempDir(tempPrefix);
    }

    /**
     * Builds the service without starting it.
     *
     * @return a stopped service
     */
    public abstract S build();

    /**
     * Builds and starts the service, closing it if the start fails.
     *
     * @return the running service
     */
    public final S start() {
      S service = build();
      try {
        return service.start();
      } catch (RuntimeException e) {
        service.close();
        throw e;
      }
    }
  }
}
