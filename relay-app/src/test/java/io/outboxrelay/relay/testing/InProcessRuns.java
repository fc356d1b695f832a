package io.outboxrelay.relay.testing;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The in-process runs of {@code outbox-relay} a test starts, closed (stopped as on SIGTERM) after
 * it, as {@link io.outboxrelay.testsupport.outbox.RelayProcesses} does for child processes. Close
 * it before the test's database is dropped: a live relay blocks the drop. It may be closed more
 * than once, and used again after. Not thread-safe.
 */
public final class InProcessRuns implements AutoCloseable {

  private final List<InProcessRun> runs = new ArrayList<>();

  /**
   * Starts {@code outbox-relay run --config <config> <more>} in this JVM without waiting for it to
   * be ready.
   *
   * @param label a name for the run and its log file
   * @param dir where the log goes
   * @param config the properties file
   * @param more further arguments, e.g. {@code --mode polling}
   * @return the started run
   */
  public InProcessRun run(String label, Path dir, String config, String... more) {
    return start(label, dir, InProcessRun.runArgs(config, more));
  }

  /**
   * Starts {@code outbox-relay <args>} in this JVM.
   *
   * @param label a name for the run and its log file
   * @param dir where the log goes
   * @param args the command line's arguments
   * @return the started run
   */
  public InProcessRun start(String label, Path dir, String... args) {
    InProcessRun run = InProcessRun.start(label, dir, args);
    runs.add(run);
    return run;
  }

  /** Stops every run still under way. */
  @Override
  public void close() {
    List<InProcessRun> all = new ArrayList<>(runs);
    runs.clear();
    RuntimeException first = null;
    for (InProcessRun run : all) {
      try {
        run.close();
      } catch (RuntimeException e) {
        if (first == null) {
          first = e;
        } else {
          first.addSuppressed(e);
        }
      }
    }
    if (first != null) {
      throw first;
    }
  }
}
