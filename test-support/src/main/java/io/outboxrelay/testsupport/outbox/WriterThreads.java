package io.outboxrelay.testsupport.outbox;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntConsumer;

/**
 * What the test applications that write outbox events from threads of their own share ({@link
 * SteadyWriter}, {@link LongTransactionWriter}): the threads, the commit time of each committed
 * event, the count of failures, and stopping.
 *
 * <p>Thread-safe: the accessors may be called while it writes.
 */
public abstract class WriterThreads implements AutoCloseable {

  private final List<Thread> workers = new ArrayList<>();

  /** Commit time (wall clock, ms) of each committed event, by event id. */
  final Map<String, Long> commitMillis = new ConcurrentHashMap<>();

  /** What failed and was retried or rolled back. */
  final AtomicLong failures = new AtomicLong();

  /** Set when asked to stop: each thread ends what it does, then returns. */
  volatile boolean stopping;

  /** What made a thread end early, reported by {@link #stop}. */
  volatile Throwable failure;

  WriterThreads() {}

  /** Starts {@code count} daemon threads, {@code name-<i>}, each running {@code work(i)}. */
  void startThreads(int count, String name, IntConsumer work) {
    for (int i = 0; i < count; i++) {
      int index = i;
      Thread thread = new Thread(() -> work.accept(index), name + "-" + i);
      thread.setDaemon(true);
      workers.add(thread);
      thread.start();
    }
  }

  /**
   * Commit time (wall clock, ms) of each event whose commit was acknowledged, by event id.
   *
   * @return the live map
   */
  public Map<String, Long> commitMillis() {
    return commitMillis;
  }

  /**
   * What failed so far: statements, commits, transactions rolled back, connection attempts.
   *
   * @return the count
   */
  public long failures() {
    return failures.get();
  }

  /**
   * Stops writing and waits for the threads: each finishes what it does first (see the class that
   * writes).
   *
   * @param timeout how long to wait
   * @throws IllegalStateException when a thread failed or did not stop in time
   * @throws InterruptedException when interrupted while waiting
   */
  public void stop(Duration timeout) throws InterruptedException {
    stopping = true;
    long deadline = System.nanoTime() + timeout.toNanos();
    for (Thread t : workers) {
      t.join(Math.max(1, (deadline - System.nanoTime()) / 1_000_000));
      if (t.isAlive()) {
        throw new IllegalStateException(t.getName() + " did not stop within " + timeout);
      }
    }
    if (failure != null) {
      throw new IllegalStateException("the writer failed", failure);
    }
  }

  @Override
  public void close() {
    stopping = true;
    workers.forEach(Thread::interrupt);
  }
}
