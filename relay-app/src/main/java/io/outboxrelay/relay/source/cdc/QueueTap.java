package io.outboxrelay.relay.source.cdc;

import io.debezium.connector.base.ChangeEventQueue;
import io.debezium.connector.base.QueueProvider;
import io.debezium.pipeline.DataChangeEvent;
import java.lang.reflect.Field;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Takes change events out of a Debezium task's queue as soon as they are enqueued.
 *
 * <p>Why: Debezium's {@code ChangeEventQueue.poll()} (3.5) returns early only when a whole batch is
 * queued; otherwise it waits the full {@code poll.interval.ms}, and in the last millisecond of that
 * wait it spins (its timer compares whole milliseconds). A short interval therefore burns CPU even
 * when idle (measured: 44% of a core at 1 ms, 15% at 5 ms), and a long one holds every event back
 * at low rates. The tap wraps the queue's storage ({@link QueueProvider}) so that an enqueue wakes
 * the relay's poller, and drains the storage under the queue's own lock, signalling the producer
 * exactly as {@code poll()} does. Nothing else of the queue changes: the binlog reader still
 * enqueues through it, with its backpressure.
 *
 * <p>It reaches four private fields of Debezium 3.5.0 by reflection. When any is missing (another
 * Debezium version), {@link #install} returns empty and the task keeps Debezium's own poll; a test
 * fails if that happens with the pinned version. Thread-safe: one poller thread calls {@link
 * #take}, the binlog reader enqueues concurrently.
 */
final class QueueTap {

  private static final Logger LOG = LoggerFactory.getLogger(QueueTap.class);

  private final ChangeEventQueue<DataChangeEvent> queue;
  private final Lock queueLock;
  private final Condition queueNotFull;
  private final Field producerException;
  private final SignallingProvider storage;

  private QueueTap(
      ChangeEventQueue<DataChangeEvent> queue,
      Lock queueLock,
      Condition queueNotFull,
      Field producerException,
      SignallingProvider storage) {
    this.queue = queue;
    this.queueLock = queueLock;
    this.queueNotFull = queueNotFull;
    this.producerException = producerException;
    this.storage = storage;
  }

  /**
   * Installs a tap on the queue held in a private field {@code queue} of {@code owner}, declared by
   * {@code declaringClass} (the connector task).
   *
   * @return the tap, or empty (with a warning) when this Debezium version is not the expected one
   */
  static Optional<QueueTap> install(Object owner, Class<?> declaringClass) {
    try {
      @SuppressWarnings("unchecked")
      ChangeEventQueue<DataChangeEvent> queue =
          (ChangeEventQueue<DataChangeEvent>) field(declaringClass, "queue").get(owner);
      return Optional.of(install(queue));
    } catch (ReflectiveOperationException | RuntimeException e) {
      LOG.warn(
          "Cannot take change events directly from the Debezium queue ({}); using Debezium's own"
              + " polling, which waits up to poll.interval.ms per batch",
          e.toString());
      return Optional.empty();
    }
  }

  /** Installs a tap on a queue. */
  @SuppressWarnings("unchecked")
  static QueueTap install(ChangeEventQueue<DataChangeEvent> queue)
      throws ReflectiveOperationException {
    Field storageField = field(ChangeEventQueue.class, "queue");
    Lock lock = (Lock) field(ChangeEventQueue.class, "lock").get(queue);
    Condition notFull = (Condition) field(ChangeEventQueue.class, "isNotFull").get(queue);
    Field producerException = field(ChangeEventQueue.class, "producerException");
    lock.lock(); // the binlog reader enqueues under this lock: swap the storage under it too
    try {
      SignallingProvider storage =
          new SignallingProvider((QueueProvider<DataChangeEvent>) storageField.get(queue));
      storageField.set(queue, storage);
      return new QueueTap(queue, lock, notFull, producerException, storage);
    } finally {
      lock.unlock();
    }
  }

  private static Field field(Class<?> type, String name) throws NoSuchFieldException {
    Field f = type.getDeclaredField(name);
    f.setAccessible(true);
    return f;
  }

  /** Whether the queue is full: the binlog reader then waits for room before it reads on. */
  boolean isFull() {
    return queue.remainingCapacity() == 0;
  }

  /**
   * Takes up to {@code max} queued events, waiting up to {@code maxWait} for the first one.
   *
   * @return the events in queue order; empty when none arrived in time
   * @throws RuntimeException the binlog reader's failure, as Debezium's poll would throw it
   * @throws InterruptedException when interrupted while waiting
   */
  List<DataChangeEvent> take(int max, Duration maxWait) throws InterruptedException {
    throwProducerException();
    if (!storage.awaitNotEmpty(maxWait)) {
      throwProducerException();
      return List.of();
    }
    List<DataChangeEvent> events = new ArrayList<>(Math.min(max, storage.pending()));
    queueLock.lock();
    try {
      DataChangeEvent e;
      while (events.size() < max && (e = storage.poll()) != null) {
        events.add(e);
      }
      queueNotFull.signalAll(); // a binlog reader blocked on a full queue may go on
    } finally {
      queueLock.unlock();
    }
    return events;
  }

  private void throwProducerException() {
    try {
      Object failure = producerException.get(queue);
      if (failure instanceof RuntimeException e) {
        throw e;
      }
    } catch (IllegalAccessException e) {
      throw new IllegalStateException(e);
    }
  }

  /** The queue's storage, counting what it holds and waking a waiting poller on enqueue. */
  private static final class SignallingProvider implements QueueProvider<DataChangeEvent> {
    private final QueueProvider<DataChangeEvent> delegate;
    private final AtomicInteger pending;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition notEmpty = lock.newCondition();
    private volatile boolean waiting;

    SignallingProvider(QueueProvider<DataChangeEvent> delegate) {
      this.delegate = delegate;
      this.pending = new AtomicInteger(delegate.size());
    }

    @Override
    public void configure(Map<String, ?> properties) {
      delegate.configure(properties);
    }

    @Override
    public void enqueue(DataChangeEvent event) throws InterruptedException {
      delegate.enqueue(event);
      pending.incrementAndGet();
      if (waiting) {
        lock.lock();
        try {
          notEmpty.signal();
        } finally {
          lock.unlock();
        }
      }
    }

    @Override
    public DataChangeEvent poll() throws InterruptedException {
      DataChangeEvent e = delegate.poll();
      if (e != null) {
        pending.decrementAndGet();
      }
      return e;
    }

    @Override
    public int size() {
      return delegate.size();
    }

    int pending() {
      return pending.get();
    }

    boolean awaitNotEmpty(Duration maxWait) throws InterruptedException {
      if (pending.get() > 0) {
        return true;
      }
      long nanos = maxWait.toNanos();
      lock.lock();
      try {
        waiting = true;
        while (pending.get() == 0) {
          if (nanos <= 0) {
            return false;
          }
          nanos = notEmpty.awaitNanos(nanos);
        }
        return true;
      } finally {
        waiting = false;
        lock.unlock();
      }
    }
  }
}
