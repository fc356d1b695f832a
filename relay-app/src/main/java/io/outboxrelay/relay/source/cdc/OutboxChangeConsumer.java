package io.outboxrelay.relay.source.cdc;

import io.debezium.engine.DebeziumEngine;
import io.debezium.engine.RecordChangeEvent;
import io.outboxrelay.relay.RelayFailure;
import io.outboxrelay.relay.config.PoisonAction;
import io.outboxrelay.relay.metrics.RelayMetrics;
import io.outboxrelay.relay.publish.Backoff;
import io.outboxrelay.relay.publish.Disposition;
import io.outboxrelay.relay.publish.ErrorClassifier;
import io.outboxrelay.relay.publish.KafkaPublisher;
import io.outboxrelay.router.EventRouter;
import io.outboxrelay.router.OutboxEvent;
import io.outboxrelay.router.RoutedRecord;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.connect.source.SourceRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes each batch the engine hands over, and marks records processed strictly in source order
 * and only after Kafka acknowledged them; the engine commits the position after the batch.
 *
 * <p>A transient failure is retried here, never thrown (an exception stops the engine): the
 * producer is replaced, and after a capped exponential pause with jitter every record from the
 * first unacknowledged one onwards is sent again, so a key's records stay in order. Records after
 * it that Kafka had already acknowledged become duplicates; they are counted. An event retrying
 * cannot publish follows {@link PoisonAction}. A failure that needs an operator stops the relay.
 *
 * <p>Only the engine's polling thread calls {@link #handleBatch}; not thread-safe otherwise.
 */
final class OutboxChangeConsumer
    implements DebeziumEngine.ChangeConsumer<RecordChangeEvent<SourceRecord>> {

  private static final Logger LOG = LoggerFactory.getLogger(OutboxChangeConsumer.class);

  /** One record of the batch: what to publish, or why not. */
  private static final class Item {
    final RecordChangeEvent<SourceRecord> change;
    final OutboxEvent event; // null: nothing to publish (heartbeat, update, delete)
    RoutedRecord routed;
    RuntimeException poison;

    Item(RecordChangeEvent<SourceRecord> change, OutboxEvent event) {
      this.change = change;
      this.event = event;
    }
  }

  private final ChangeEventMapper mapper = new ChangeEventMapper();
  private final EventRouter router;
  private final KafkaPublisher publisher;
  private final Backoff backoff;
  private final PoisonAction poisonAction;
  private final RelayMetrics metrics;
  private final DrainGate gate;
  private final String context;

  OutboxChangeConsumer(
      EventRouter router,
      KafkaPublisher publisher,
      Backoff backoff,
      PoisonAction poisonAction,
      RelayMetrics metrics,
      DrainGate gate,
      String context) {
    this.router = router;
    this.publisher = publisher;
    this.backoff = backoff;
    this.poisonAction = poisonAction;
    this.metrics = metrics;
    this.gate = gate;
    this.context = context;
  }

  @Override
  public void handleBatch(
      List<RecordChangeEvent<SourceRecord>> records,
      DebeziumEngine.RecordCommitter<RecordChangeEvent<SourceRecord>> committer)
      throws InterruptedException {
    if (!gate.tryEnter()) {
      return; // stopping: not published, not marked, read again after restart
    }
    try {
      long start = System.nanoTime();
      List<Item> items = new ArrayList<>(records.size());
      for (RecordChangeEvent<SourceRecord> change : records) {
        items.add(route(change));
      }
      publishInOrder(items, committer);
      long published = System.nanoTime();
      committer.markBatchFinished();
      metrics.batch(published - start, System.nanoTime() - published);
    } finally {
      gate.exit();
    }
  }

  private Item route(RecordChangeEvent<SourceRecord> change) {
    OutboxEvent event;
    try {
      event = mapper.map(change.record());
    } catch (RuntimeException e) {
      Item item = new Item(change, null);
      item.poison = e;
      return item;
    }
    Item item = new Item(change, event);
    if (event != null) {
      try {
        item.routed = router.route(event);
      } catch (RuntimeException e) {
        item.poison = e;
      }
    }
    return item;
  }

  private void publishInOrder(
      List<Item> items, DebeziumEngine.RecordCommitter<RecordChangeEvent<SourceRecord>> committer)
      throws InterruptedException {
    int from = 0;
    int attempt = 0;
    while (from < items.size()) {
      List<Item> sendable = new ArrayList<>();
      List<RoutedRecord> batch = new ArrayList<>();
      for (int i = from; i < items.size(); i++) {
        Item it = items.get(i);
        if (it.routed != null) {
          sendable.add(it);
          batch.add(it.routed);
        }
      }
      List<KafkaPublisher.Outcome> outcomes =
          publisher.sendAll(batch, null, gate::shouldAbandonRetries);

      int retryAt = -1;
      Throwable retryCause = null;
      int next = 0; // index into sendable/outcomes
      int acknowledged = 0;
      for (int i = from; i < items.size(); i++) {
        Item it = items.get(i);
        if (it.routed == null) {
          if (it.poison != null) {
            poison(it, it.poison, committer);
          }
          committer.markProcessed(it.change);
          continue;
        }
        KafkaPublisher.Outcome outcome = outcomes.get(next++);
        if (outcome.acknowledged()) {
          committer.markProcessed(it.change);
          metrics.observeCreatedAt(it.event.createdAt());
          acknowledged++;
          continue;
        }
        Disposition d = ErrorClassifier.classify(outcome.error());
        if (d == Disposition.DEAD) {
          poison(it, outcome.error(), committer);
          committer.markProcessed(it.change);
          continue;
        }
        if (d == Disposition.STOP) {
          committer.markBatchFinished();
          throw new RelayFailure(
              "Kafka refused event_id="
                  + it.event.eventId()
                  + " in a way retrying cannot fix ("
                  + ErrorClassifier.describe(outcome.error())
                  + "): fix the Kafka credentials or"
                  + " ACLs and restart; the relay will resume at this event",
              outcome.error());
        }
        retryAt = i;
        retryCause = outcome.error();
        break;
      }
      metrics.published(acknowledged);
      if (retryAt < 0) {
        return;
      }
      int alreadyAcked = 0;
      for (int k = next; k < outcomes.size(); k++) {
        if (outcomes.get(k).acknowledged()) {
          alreadyAcked++;
        }
      }
      metrics.resent(alreadyAcked);
      metrics.retry();
      attempt++;
      Duration pause = backoff.delay(attempt);
      LOG.warn(
          "[{}] Kafka did not acknowledge event_id={} (attempt {}, {}); re-sending {} events from"
              + " it in {} ms",
          context,
          items.get(retryAt).event.eventId(),
          attempt,
          ErrorClassifier.describe(retryCause),
          items.size() - retryAt,
          pause.toMillis());
      publisher.reset();
      if (!pauseUnlessStopping(pause)) {
        LOG.warn(
            "[{}] stopping: {} events of this batch were not acknowledged and will be read again"
                + " after restart",
            context,
            items.size() - retryAt);
        return;
      }
      from = retryAt;
    }
  }

  private void poison(
      Item it,
      Throwable error,
      DebeziumEngine.RecordCommitter<RecordChangeEvent<SourceRecord>> committer)
      throws InterruptedException {
    String id = it.event != null ? "event_id=" + it.event.eventId() : "a row";
    String reason = ErrorClassifier.describe(error);
    if (poisonAction == PoisonAction.FAIL) {
      committer.markBatchFinished(); // commit the position just before the poison event
      throw new RelayFailure(
          "cannot publish "
              + id
              + ": "
              + reason
              + ". Fix the cause (e.g. raise"
              + " kafka.producer.max.request.size and the topic's max.message.bytes) and restart,"
              + " or set cdc.poison.action=skip to skip such events",
          error);
    }
    metrics.poison();
    LOG.error("[{}] skipping {} that cannot be published: {}", context, id, reason);
  }

  /** Sleeps for the pause unless a stop passes its deadline first; true when it slept fully. */
  private boolean pauseUnlessStopping(Duration pause) throws InterruptedException {
    long until = System.nanoTime() + pause.toNanos();
    while (System.nanoTime() < until) {
      if (gate.shouldAbandonRetries()) {
        return false;
      }
      long left = until - System.nanoTime();
      Thread.sleep(Math.max(1, Math.min(100, left / 1_000_000)));
    }
    return !gate.shouldAbandonRetries();
  }

  @Override
  public boolean supportsTombstoneEvents() {
    return false;
  }
}
