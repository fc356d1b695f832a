package io.outboxrelay.idempotency.kafka;

import io.outboxrelay.idempotency.Counters;
import io.outboxrelay.idempotency.EventRef;
import io.outboxrelay.idempotency.IdempotentProcessor;
import io.outboxrelay.idempotency.Outcome;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@link IdempotentConsumer}. The Kafka consumer, the pending offsets and the retry state are
 * owned by the thread in {@link #run()}; {@link #close()} only flips the state and wakes the poll.
 */
final class KafkaIdempotentConsumer implements IdempotentConsumer {

  private static final Logger LOG = LoggerFactory.getLogger(KafkaIdempotentConsumer.class);

  /** The lifecycle. */
  enum State {
    /** Built; {@link #run()} not called yet. */
    NEW,
    /** {@link #run()} is polling and processing. */
    RUNNING,
    /** {@link #close()} was called: {@link #run()} finishes the record at hand and commits. */
    STOPPING,
    /** Ended normally, or closed before it ran; clients closed. */
    STOPPED,
    /** {@link #run()} ended with an exception; what was done is committed, clients closed. */
    FAILED
  }

  /** Everything the builder assembled. */
  record Parts(
      Consumer<byte[], byte[]> consumer,
      DeadLetterPublisher deadLetters,
      List<String> topics,
      IdempotentProcessor processor,
      RecordHandler handler,
      RecordEvents events,
      RecordTracing tracing,
      RetryPolicy retryPolicy,
      FailurePolicy failurePolicy,
      ConsumerListener listener,
      Duration pollTimeout,
      Duration closeTimeout,
      String groupId) {}

  private final Parts parts;
  private final Consumer<byte[], byte[]> consumer;
  private final String logPrefix;
  private final AtomicReference<State> state = new AtomicReference<>(State.NEW);
  private final CountDownLatch finished = new CountDownLatch(1);
  private final PendingOffsets pending;
  private final PartitionRetries retries = new PartitionRetries(System::nanoTime);
  private final LongAdder processed = new LongAdder();
  private final LongAdder duplicates = new LongAdder();
  private final LongAdder stale = new LongAdder();
  private final LongAdder conflicts = new LongAdder();
  private final LongAdder failures = new LongAdder();
  private final LongAdder deadLettered = new LongAdder();
  private volatile Thread runner;

  KafkaIdempotentConsumer(Parts parts) {
    this.parts = parts;
    this.consumer = parts.consumer();
    this.logPrefix = "[idempotent-consumer group=" + parts.groupId() + "]";
    this.pending = new PendingOffsets(consumer, logPrefix);
  }

  @Override
  public void run() {
    if (!state.compareAndSet(State.NEW, State.RUNNING)) {
      throw new IllegalStateException(
          logPrefix + " run() may be called once, and not after close(); state " + state.get());
    }
    runner = Thread.currentThread();
    LOG.info(
        "{} starting: topics {}, {}, on failure {}",
        logPrefix,
        parts.topics(),
        parts.retryPolicy(),
        parts.failurePolicy());
    boolean failed = true;
    try {
      consumer.subscribe(parts.topics(), new Rebalance());
      while (state.get() == State.RUNNING) {
        pollOnce();
      }
      failed = false;
    } catch (WakeupException e) {
      if (state.get() == State.RUNNING) {
        throw e;
      }
      failed = false;
    } finally {
      shutDown(failed);
    }
  }

  private void pollOnce() {
    List<TopicPartition> due = retries.due();
    if (!due.isEmpty()) {
      consumer.resume(due);
    }
    ConsumerRecords<byte[], byte[]> records =
        consumer.poll(retries.pollTimeout(parts.pollTimeout()));
    for (TopicPartition partition : records.partitions()) {
      for (ConsumerRecord<byte[], byte[]> record : records.records(partition)) {
        if (state.get() != State.RUNNING) {
          return; // the rest is not processed, so not committed: delivered again
        }
        if (!handle(partition, record)) {
          break; // the partition waits for a retry of this record
        }
      }
    }
    commitPending();
  }

  /** Processes one record; returns false if its partition now waits for a retry. */
  private boolean handle(TopicPartition partition, ConsumerRecord<byte[], byte[]> record) {
    int attempt = retries.attempt(partition, record.offset());
    Outcome outcome;
    try {
      outcome = parts.tracing().process(record, () -> processRecord(record));
    } catch (RuntimeException e) {
      failures.increment();
      return onFailure(partition, record, attempt, e);
    }
    switch (outcome) {
      case PROCESSED -> processed.increment();
      case DUPLICATE -> duplicates.increment();
      case STALE -> stale.increment();
      case CONFLICT -> conflicts.increment();
    }
    notifyListener(
        "afterDatabaseCommit", () -> parts.listener().afterDatabaseCommit(record, outcome));
    if (outcome == Outcome.CONFLICT) {
      // A producer bug, not a passing failure: another attempt finds the same recorded id.
      return onFailure(partition, record, attempt, conflict(record));
    }
    retries.clear(partition);
    pending.markDone(record);
    return true;
  }

  private Outcome processRecord(ConsumerRecord<byte[], byte[]> record) {
    EventRef event = parts.events().toEventRef(record, parts.processor().checksConflicts());
    return parts
        .processor()
        .process(event, connection -> parts.handler().handle(record, connection));
  }

  private PoisonRecordException conflict(ConsumerRecord<byte[], byte[]> record) {
    return PoisonRecordException.conflict(parts.events().eventIdOrNull(record));
  }

  private boolean onFailure(
      TopicPartition partition,
      ConsumerRecord<byte[], byte[]> record,
      int attempt,
      RuntimeException e) {
    Disposition disposition = ErrorClassifier.classify(e);
    int maxAttempts = parts.retryPolicy().maxAttempts();
    boolean retriable =
        disposition == Disposition.RETRY || disposition == Disposition.DATABASE_UNAVAILABLE;
    if (retriable && attempt < maxAttempts) {
      Duration delay = parts.retryPolicy().delayAfter(attempt);
      LOG.warn(
          "{} {} failed (attempt {} of {}), retrying in {} ms: {}",
          logPrefix,
          describe(record),
          attempt,
          maxAttempts,
          delay.toMillis(),
          DeadLetterPublisher.reported(e).toString());
      retries.retryLater(partition, record.offset(), attempt, delay);
      consumer.seek(partition, record.offset());
      consumer.pause(List.of(partition));
      notifyListener("onRetry", () -> parts.listener().onRetry(record, e, attempt, delay));
      return false;
    }
    retries.clear(partition);
    if (disposition == Disposition.SCHEMA_MIGRATION_REQUIRED) {
      throw stopped(
          record, attempt, e, "the consumer's database needs a migration; run it, restart");
    }
    if (disposition == Disposition.DATABASE_UNAVAILABLE) {
      throw stopped(record, attempt, e, "the database stayed unreachable; restart when it is back");
    }
    if (parts.failurePolicy().action() == FailurePolicy.Action.STOP) {
      throw stopped(
          record,
          attempt,
          e,
          "the failure policy is STOP; fix the cause (or the record) and restart, or configure a"
              + " dead-letter topic");
    }
    deadLetter(record, attempt, e);
    pending.markDone(record);
    return true;
  }

  private void deadLetter(ConsumerRecord<byte[], byte[]> record, int attempts, RuntimeException e) {
    DeadLetterPublisher deadLetters = parts.deadLetters();
    try {
      deadLetters.publish(record, e, attempts);
    } catch (InterruptedException interrupted) {
      Thread.currentThread().interrupt();
      throw stopped(record, attempts, e, "interrupted while dead-lettering it");
    } catch (ExecutionException | TimeoutException sendFailure) {
      ConsumerStoppedException stop =
          stopped(
              record,
              attempts,
              e,
              "it could not be published to dead-letter topic "
                  + deadLetters.topic()
                  + " ("
                  + sendFailure.getCause()
                  + "); check that the topic exists and is writable, then restart");
      stop.addSuppressed(sendFailure);
      throw stop;
    }
    deadLettered.increment();
    LOG.error(
        "{} {} dead-lettered to {} after {} attempt(s): {}. Inspect it there; once the cause is"
            + " fixed, publish it again to {} to apply it",
        logPrefix,
        describe(record),
        deadLetters.topic(),
        attempts,
        DeadLetterPublisher.reported(e).toString(),
        record.topic());
    notifyListener("onDeadLettered", () -> parts.listener().onDeadLettered(record, e, attempts));
  }

  private ConsumerStoppedException stopped(
      ConsumerRecord<byte[], byte[]> record, int attempts, Throwable cause, String why) {
    String message =
        logPrefix
            + " stopped at "
            + describe(record)
            + " after "
            + attempts
            + " failed attempt(s): "
            + why
            + ". Its offset is not committed: it is delivered again after a restart. Last failure: "
            + DeadLetterPublisher.reported(cause);
    LOG.error(message);
    return new ConsumerStoppedException(
        message,
        record.topic(),
        record.partition(),
        record.offset(),
        parts.events().eventIdOrNull(record),
        cause);
  }

  private void commitPending() {
    Map<TopicPartition, OffsetAndMetadata> offsets = pending.commit();
    if (!offsets.isEmpty()) {
      notifyListener(
          "afterOffsetsCommitted", () -> parts.listener().afterOffsetsCommitted(offsets));
    }
  }

  private void shutDown(boolean failed) {
    try {
      try {
        commitPending();
      } catch (WakeupException e) {
        commitPending(); // a close() raced with the loop; the wakeup is consumed now
      }
    } catch (RuntimeException e) {
      LOG.warn("{} final offset commit failed: {}", logPrefix, e.toString());
    }
    closeClients();
    state.set(failed ? State.FAILED : State.STOPPED);
    LOG.info("{} {}: {}", logPrefix, failed ? "failed" : "stopped", counters());
    finished.countDown();
  }

  private void closeClients() {
    try {
      consumer.close(Duration.ofSeconds(10));
    } catch (RuntimeException e) {
      LOG.warn("{} closing the consumer failed: {}", logPrefix, e.toString());
    }
    if (parts.deadLetters() != null) {
      try {
        parts.deadLetters().close();
      } catch (RuntimeException e) {
        LOG.warn("{} closing the dead-letter producer failed: {}", logPrefix, e.toString());
      }
    }
  }

  @Override
  public void close() {
    State previous =
        state.getAndUpdate(
            s -> s == State.NEW ? State.STOPPED : s == State.RUNNING ? State.STOPPING : s);
    if (previous == State.NEW) {
      closeClients();
      finished.countDown();
      return;
    }
    if (previous == State.RUNNING) {
      consumer.wakeup();
    }
    if (Thread.currentThread() == runner) {
      return;
    }
    try {
      if (!finished.await(parts.closeTimeout().toMillis(), TimeUnit.MILLISECONDS)) {
        LOG.warn(
            "{} did not stop within {}: a handler is still running",
            logPrefix,
            parts.closeTimeout());
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public Counters counters() {
    return new Counters(
        processed.sum(),
        duplicates.sum(),
        stale.sum(),
        conflicts.sum(),
        failures.sum(),
        deadLettered.sum());
  }

  private String describe(ConsumerRecord<byte[], byte[]> record) {
    return "record "
        + record.topic()
        + "-"
        + record.partition()
        + "@"
        + record.offset()
        + " ("
        + parts.events().describeId(record)
        + ")";
  }

  private void notifyListener(String method, Runnable call) {
    try {
      call.run();
    } catch (RuntimeException e) {
      LOG.warn("{} listener {} failed, ignored: {}", logPrefix, method, e.toString());
    }
  }

  /** Commits what is done before partitions go; forgets the retries of partitions that went. */
  private final class Rebalance implements ConsumerRebalanceListener {

    @Override
    public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
      commitPending();
      retries.forget(partitions);
      if (!partitions.isEmpty()) {
        LOG.info("{} partitions revoked: {}", logPrefix, partitions);
      }
      notifyListener("onPartitionsRevoked", () -> parts.listener().onPartitionsRevoked(partitions));
    }

    @Override
    public void onPartitionsLost(Collection<TopicPartition> partitions) {
      pending.drop(partitions);
      retries.forget(partitions);
      LOG.warn(
          "{} partitions lost (this consumer was dropped from the group): {}. Their records since"
              + " the last commit are delivered again and recognised as duplicates",
          logPrefix,
          partitions);
      notifyListener("onPartitionsRevoked", () -> parts.listener().onPartitionsRevoked(partitions));
    }

    @Override
    public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
      if (!partitions.isEmpty()) {
        LOG.info("{} partitions assigned: {}", logPrefix, partitions);
      }
      notifyListener(
          "onPartitionsAssigned", () -> parts.listener().onPartitionsAssigned(partitions));
    }
  }
}
