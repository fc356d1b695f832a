package io.outboxrelay.bench;

import io.outboxrelay.testsupport.outbox.RelayProcess;
import java.time.Duration;
import java.util.function.IntFunction;
import java.util.regex.Pattern;

/**
 * Starts a relay and starts it again each time it exits, after a pause that doubles (10 s, 20 s, 40
 * s..., at most 5 minutes), as Kubernetes restarts a crash-looping container; stops supervising
 * once a relay logs {@code ready}. So a build that exits on a fault at start and one that waits for
 * the fault to end can be compared by when they publish again. Runs on a daemon thread of its own.
 */
final class CrashLoopSupervisor {

  /** The first restart delay, doubled after each exit. */
  static final Duration FIRST_BACKOFF = Duration.ofSeconds(10);

  static final Duration LONGEST_BACKOFF = Duration.ofMinutes(5);

  private static final Pattern READY = Pattern.compile("\\] ready: ");

  private volatile boolean supervising = true;

  private CrashLoopSupervisor() {}

  /**
   * Starts supervising at once.
   *
   * @param startRelay starts relay number n (not waiting until it is ready)
   * @param firstNumber the number of the first relay it starts
   * @return the running supervisor
   */
  static CrashLoopSupervisor start(IntFunction<RelayProcess> startRelay, int firstNumber) {
    CrashLoopSupervisor s = new CrashLoopSupervisor();
    Thread t = new Thread(() -> s.supervise(startRelay, firstNumber), "bench-supervisor");
    t.setDaemon(true);
    t.start();
    return s;
  }

  private void supervise(IntFunction<RelayProcess> startRelay, int firstNumber) {
    Duration backoff = FIRST_BACKOFF;
    int n = firstNumber;
    while (supervising) {
      RelayProcess relay = startRelay.apply(n++);
      while (supervising && relay.process().isAlive()) {
        if (READY.matcher(relay.log()).find()) {
          supervising = false; // it runs: nothing more to supervise
          return;
        }
        sleep(Duration.ofMillis(100));
      }
      if (!supervising) {
        return;
      }
      sleep(backoff);
      backoff = backoff.multipliedBy(2);
      if (backoff.compareTo(LONGEST_BACKOFF) > 0) {
        backoff = LONGEST_BACKOFF;
      }
    }
  }

  private static void sleep(Duration d) {
    try {
      Thread.sleep(d.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
