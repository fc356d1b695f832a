package io.outboxrelay.idempotency.spring;

import io.outboxrelay.idempotency.Counters;
import io.outboxrelay.idempotency.Outcome;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;

/**
 * What the {@link IdempotentListener} listeners did with the records delivered to them, per
 * consumer group, counted once each record's transaction has ended: {@code processed} (the listener
 * ran and its transaction committed), {@code duplicates} and {@code stale} (skipped, their
 * transaction committed), {@code conflicts}, and {@code failures} (each failed delivery: the
 * listener's exception, a failed commit, a record without a valid event id; a retry that then
 * succeeds counts once as a failure and once as processed). consumer-idempotency's {@code
 * IdempotentProcessor.admit}, which the listeners call, leaves its own counts alone, because it
 * cannot know how the caller's transaction ends; these are the listeners' counts. The starter's
 * meter {@code outbox.consumer.events} reads them. {@code deadLettered} is always 0: spring-kafka's
 * recoverer does the dead-lettering.
 *
 * <p>A consumer group appears when the first container of an annotated listener of that group is
 * created (at the application's start, or later for a container created at run time). Thread-safe.
 */
public final class IdempotentListenerCounters {

  private final Map<String, GroupCounts> groups = new LinkedHashMap<>();
  private final List<Consumer<String>> subscribers = new ArrayList<>();

  /** Creates counters without any consumer group; the starter's auto-configuration does. */
  public IdempotentListenerCounters() {}

  /**
   * The counts of one consumer group's listeners since their containers were created.
   *
   * @param consumerGroup the Kafka {@code group.id}
   * @return a snapshot, or {@code null} if no annotated listener of that group exists
   */
  public Counters counters(String consumerGroup) {
    GroupCounts counts;
    synchronized (this) {
      counts = groups.get(consumerGroup);
    }
    return counts == null ? null : counts.snapshot();
  }

  /**
   * The consumer groups of the annotated listeners created so far.
   *
   * @return their names, sorted; a copy
   */
  public synchronized Set<String> consumerGroups() {
    return new TreeSet<>(groups.keySet());
  }

  /**
   * Calls {@code subscriber} with each consumer group there is now and, from then on, with each
   * group that appears, exactly once per group, on the thread that creates it (a listener
   * container's creator), outside any lock of these counters. The subscriber should be quick.
   *
   * @param subscriber called with the group's name; not {@code null}
   */
  public void onConsumerGroup(Consumer<String> subscriber) {
    Objects.requireNonNull(subscriber, "subscriber");
    List<String> existing;
    synchronized (this) {
      subscribers.add(subscriber);
      existing = new ArrayList<>(groups.keySet());
    }
    existing.forEach(subscriber);
  }

  /** The counts of a group, created (and announced to the subscribers) on first use. */
  GroupCounts group(String consumerGroup) {
    GroupCounts counts;
    List<Consumer<String>> toTell;
    synchronized (this) {
      counts = groups.get(consumerGroup);
      if (counts != null) {
        return counts;
      }
      counts = new GroupCounts();
      groups.put(consumerGroup, counts);
      toTell = new ArrayList<>(subscribers);
    }
    toTell.forEach(s -> s.accept(consumerGroup));
    return counts;
  }

  /** One group's counts. Thread-safe. */
  static final class GroupCounts {
    private final LongAdder processed = new LongAdder();
    private final LongAdder duplicates = new LongAdder();
    private final LongAdder stale = new LongAdder();
    private final LongAdder conflicts = new LongAdder();
    private final LongAdder failures = new LongAdder();

    /** A delivery whose transaction ended with this outcome (committed). */
    void ended(Outcome outcome) {
      switch (outcome) {
        case PROCESSED -> processed.increment();
        case DUPLICATE -> duplicates.increment();
        case STALE -> stale.increment();
        case CONFLICT -> conflicts.increment();
      }
    }

    /** A delivery that failed (its transaction rolled back, or never began). */
    void failed() {
      failures.increment();
    }

    Counters snapshot() {
      return new Counters(
          processed.sum(), duplicates.sum(), stale.sum(), conflicts.sum(), failures.sum(), 0);
    }
  }
}
