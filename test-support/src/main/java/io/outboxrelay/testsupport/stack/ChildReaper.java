package io.outboxrelay.testsupport.stack;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * Keeps track of running child processes and ends them when the JVM exits, so that a test run
 * leaves no servers behind: SIGCONT and SIGTERM to all, then SIGKILL to those still running after
 * {@value #GRACE_SECONDS} seconds. A JVM killed with SIGKILL cannot do this.
 *
 * <p>Thread-safe.
 */
final class ChildReaper {

  private static final int GRACE_SECONDS = 10;
  private static final Set<Process> RUNNING = ConcurrentHashMap.newKeySet();

  static {
    Runtime.getRuntime()
        .addShutdownHook(new Thread(ChildReaper::reapAll, "local-stack-child-reaper"));
  }

  private ChildReaper() {}

  /** Tracks a process until it exits. */
  static void track(Process process) {
    RUNNING.add(process);
    process.onExit().thenRun(() -> RUNNING.remove(process));
  }

  private static void reapAll() {
    List<Process> leftovers = new ArrayList<>(RUNNING);
    for (Process process : leftovers) {
      process.destroy();
      // A paused process must run again to handle SIGTERM.
      Commands.run(List.of("kill", "-CONT", Long.toString(process.pid())), Duration.ofSeconds(5));
    }
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(GRACE_SECONDS);
    for (Process process : leftovers) {
      try {
        long left = Math.max(0, deadline - System.nanoTime());
        if (!process.waitFor(left, TimeUnit.NANOSECONDS)) {
          process.destroyForcibly();
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        process.destroyForcibly();
      }
    }
  }
}
