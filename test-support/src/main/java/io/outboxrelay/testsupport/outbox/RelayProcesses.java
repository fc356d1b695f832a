package io.outboxrelay.testsupport.outbox;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The relay processes a test starts, closed (SIGTERM, then SIGKILL) after it. Close it before the
 * test's database is dropped: a live relay blocks the drop. Not thread-safe.
 */
public final class RelayProcesses implements AutoCloseable {

  private final List<RelayProcess> processes = new ArrayList<>();

  /**
   * Starts {@code outbox-relay run --config <config> <more>} without waiting for it to be ready.
   *
   * @param label a name for the log file
   * @param dir where the log goes
   * @param config the properties file
   * @param more further arguments, e.g. {@code --mode polling}
   * @return the started process
   */
  public RelayProcess run(String label, Path dir, String config, String... more) {
    List<String> args = new ArrayList<>(List.of("run", "--config", config));
    args.addAll(List.of(more));
    RelayProcess p = RelayProcess.start(label, dir, args.toArray(String[]::new));
    processes.add(p);
    return p;
  }

  /** Closes every process started. */
  @Override
  public void close() {
    processes.forEach(RelayProcess::close);
    processes.clear();
  }
}
