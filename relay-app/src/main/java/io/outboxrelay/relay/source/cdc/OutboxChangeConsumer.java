package io.outboxrelay.relay.source.cdc;

import io.debezium.engine.DebeziumEngine;
import io.debezium.engine.RecordChangeEvent;
import io.outboxrelay.relay.RelayFailure;
import io.outboxrelay.relay.config.PoisonAction;
import io.outboxrelay.relay.failure.Backoff;
import io.outboxrelay.relay.failure.ErrorClassifier;
import io.outboxrelay.relay.failure.SendVerdict;
import io.outboxrelay.relay.metrics.RelayMetrics;
import io.outboxrelay.relay.publish.KafkaBreaker;
import io.outboxrelay.relay.publish.KafkaPublisher;
import io.outboxrelay.relay.publish.RecordSizeLimit;
import io.outboxrelay.relay.source.EventRouting;
import io.outboxrelay.relay.source.RowLayout;
import io.outboxrelay.relay.versions.VersionWatch;
import io.outboxrelay.router.EventRouter;
import io.outboxrelay.router.OutboxEvent;
import io.outboxrelay.router.RoutedRecord;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;
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
 * it that Kafka had already acknowledged become duplicates; they are counted. A failure that needs
 * an operator stops the relay. When Kafka as a whole does not answer (the {@link KafkaBreaker} is
 * open, or a failed send that reached nothing is followed by an unanswered metadata request), the
 * pause lasts until Kafka answers again instead: the re-send follows within the breaker's probe
 * interval, and the outage is told by the breaker once rather than by a WARN per retry.
 *
 * <p>An event retrying cannot publish (poison) follows {@link PoisonAction}. With {@code fail} the
 * relay stops at it, and nothing after it may reach Kafka, or a later event of its aggregate would
 * be published before it once the cause is fixed (and again after every restart until then). So
 * what can be known before sending is checked first — the event maps and routes (legal topic,
 * non-NULL payload), and its record fits the producer's size limit — and a batch is sent only up to
 * its first such event. A record the broker refuses stops the sending at once ({@link
 * KafkaPublisher#sendAll(List, Long, java.util.function.BooleanSupplier,
 * java.util.function.Predicate)}): nothing queued after it is sent. With {@code skip} the event is
 * logged, counted and passed over, and everything else is published.
 *
 * <p>With several relays on one table, only the leader publishes, and only while its leadership is
 * sure to be valid ({@code mayPublish}, asked before every send and during retries): once that is
 * no longer sure, nothing more is sent or marked, and the rest of the batch is read again by
 * whichever relay holds leadership next.
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
    RoutedRecord routed; // null: not to be sent (nothing to publish, or poison)
    // Why it cannot be published: found before sending (unmappable, unroutable, too large), or
    // Kafka refused it in an earlier send of this batch.
    Throwable poison;
    boolean refusedByKafka;

    Item(RecordChangeEvent<SourceRecord> change, OutboxEvent event) {
      this.change = change;
      this.event = event;
    }
  }

  private final ChangeEventMapper mapper;
  private final EventRouter router;
  private final RecordSizeLimit sizeLimit;
  private final KafkaPublisher publisher;
  private final Backoff backoff;
  private final KafkaBreaker kafka;
  private final PoisonAction poisonAction;
  private final RelayMetrics metrics;
  private final DrainGate gate;
  private final String context;
  private final BooleanSupplier mayPublish;
  private final EventRouting routing;
  private final ExactlyOnce exactlyOnce; // null: at-least-once
  private boolean dropping;

  /**
   * @param versions the version check, fresh for this consumer: an engine that starts again reads
   *     again from the committed position, so a watch that outlived it would take those events for
   *     versions going backwards
   */
  OutboxChangeConsumer(
      EventRouter router,
      RecordSizeLimit sizeLimit,
      KafkaPublisher publisher,
      Backoff backoff,
      KafkaBreaker kafka,
      PoisonAction poisonAction,
      RelayMetrics metrics,
      DrainGate gate,
      String context,
      BooleanSupplier mayPublish,
      VersionWatch versions) {
    this(
        new ChangeEventMapper(),
        router,
        sizeLimit,
        publisher,
        backoff,
        kafka,
        poisonAction,
        metrics,
        gate,
        context,
        mayPublish,
        versions,
        null);
  }

  /**
   * @param mapper reads the source's rows, as its column settings name the columns
   * @param exactlyOnce the term's Kafka transactions ({@code delivery.guarantee=exactly-once}):
   *     each batch and the position after it are committed in one; null for at-least-once
   */
  OutboxChangeConsumer(
      ChangeEventMapper mapper,
      EventRouter router,
      RecordSizeLimit sizeLimit,
      KafkaPublisher publisher,
      Backoff backoff,
      KafkaBreaker kafka,
      PoisonAction poisonAction,
      RelayMetrics metrics,
      DrainGate gate,
      String context,
      BooleanSupplier mayPublish,
      VersionWatch versions,
      ExactlyOnce exactlyOnce) {
    this.mapper = mapper;
    this.exactlyOnce = exactlyOnce;
    this.router = router;
    this.routing = new EventRouting(router, versions, sizeLimit);
    this.sizeLimit = sizeLimit;
    this.publisher = publisher;
    this.backoff = backoff;
    this.kafka = kafka;
    this.poisonAction = poisonAction;
    this.metrics = metrics;
    this.gate = gate;
    this.context = context;
    this.mayPublish = mayPublish;
  }

  @Override
  public void handleBatch(
      List<RecordChangeEvent<SourceRecord>> records,
      DebeziumEngine.RecordCommitter<RecordChangeEvent<SourceRecord>> committer)
      throws InterruptedException {
    if (!gate.tryEnter()) {
      return; // stopping: not published, not marked, read again after restart
    }
    metrics.health().beat();
    try {
      if (!mayPublishNow()) {
        return; // not marked: read again by the next leader
      }
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

  /**
   * Publishes events read from the table rather than the binlog (a first start's snapshot, {@link
   * FirstStart}) exactly as a batch of the engine's: same routing, size check, retries and poison
   * action; a poison event with {@code fail} throws {@link io.outboxrelay.relay.RelayFailure}.
   *
   * @param events the events, in the order to publish them; an entry's {@code malformed} is why it
   *     cannot be published, or null
   * @return whether every event was acknowledged or passed over as poison; false when the run is
   *     stopping or leadership is no longer sure (nothing is known of the rest)
   * @throws InterruptedException when interrupted
   */
  boolean publishEvents(List<RowLayout.Row> events) throws InterruptedException {
    if (!gate.tryEnter()) {
      return false;
    }
    try {
      if (!mayPublishNow()) {
        return false;
      }
      long start = System.nanoTime();
      List<Item> items = new ArrayList<>(events.size());
      for (RowLayout.Row row : events) {
        if (row.malformed() != null) {
          Item item = new Item(null, row.event());
          item.poison = row.malformed();
          items.add(item);
        } else {
          items.add(route(null, row.event()));
        }
      }
      int[] done = {0};
      publishInOrder(
          items,
          new DebeziumEngine.RecordCommitter<>() {
            @Override
            public void markProcessed(RecordChangeEvent<SourceRecord> record) {
              done[0]++;
            }

            @Override
            public void markBatchFinished() {}

            @Override
            public void markProcessed(
                RecordChangeEvent<SourceRecord> record, DebeziumEngine.Offsets sourceOffsets) {
              done[0]++;
            }

            @Override
            public DebeziumEngine.Offsets buildOffsets() {
              return null;
            }
          });
      metrics.batch(System.nanoTime() - start, 0);
      return done[0] == items.size();
    } finally {
      gate.exit();
    }
  }

  /**
   * A first start's dry pass, before it sends anything ({@link FirstStart}): maps, routes and
   * size-checks each event as {@link #publishEvents} would, and sends nothing. With {@code
   * cdc.poison.action=fail} a poison event would stop the start part-way after its earlier events
   * were sent, and every restart would send them again; found here, it stops the start first.
   *
   * @param events the events, as for {@link #publishEvents}
   * @return null when each can be published as far as the relay can tell (or the poison action is
   *     not {@code fail}); else the first that cannot, and what to do, for the failure message
   */
  String firstUnpublishable(List<io.outboxrelay.relay.source.RowLayout.Row> events) {
    if (poisonAction != PoisonAction.FAIL) {
      return null;
    }
    for (io.outboxrelay.relay.source.RowLayout.Row row : events) {
      Item item = new Item(null, row.event());
      Throwable poison = row.malformed();
      if (poison == null && row.event() != null) {
        try {
          // Not route(): that records the event's version, which the real pass does once.
          poison = sizeLimit.check(router.route(row.event()));
        } catch (RuntimeException e) {
          poison = e;
        }
      }
      if (poison != null) {
        String reason = ErrorClassifier.describe(poison);
        return describe(item)
            + ": "
            + (reason.endsWith(".") ? reason.substring(0, reason.length() - 1) : reason)
            + ". "
            + PoisonHint.whatToDo(poison, true);
      }
    }
    return null;
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
    return route(change, event);
  }

  private Item route(RecordChangeEvent<SourceRecord> change, OutboxEvent event) {
    Item item = new Item(change, event);
    if (event != null) {
      // Once per record: a re-send does not route again.
      EventRouting.Result result = routing.route(event, null);
      if (result instanceof EventRouting.Routed r) {
        item.routed = r.record();
      } else {
        item.poison = ((EventRouting.Poison) result).cause();
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
      // With fail the relay stops at the first poison event; nothing after it may be sent.
      int end = poisonAction == PoisonAction.FAIL ? firstPoison(items, from) : items.size();
      List<Integer> sent = new ArrayList<>();
      List<RoutedRecord> batch = new ArrayList<>();
      for (int i = from; i < end; i++) {
        Item it = items.get(i);
        if (it.routed != null) {
          sent.add(i);
          batch.add(it.routed);
        }
      }
      if (!mayPublishNow()) {
        return;
      }
      List<KafkaPublisher.Outcome> outcomes;
      if (exactlyOnce != null) {
        outcomes = sendInTransaction(items, from, end, batch);
        if (outcomes == null) {
          return; // fenced, or the commit's outcome unknown: a new term resumes from Kafka's
        }
      } else {
        outcomes =
            batch.isEmpty()
                ? List.of()
                : publisher.sendAll(batch, null, this::shouldAbandonRetries, this::stopsSending);
      }
      Marked marked = markInOrder(items, from, end, outcomes, committer);
      metrics.published(marked.acknowledged());
      if (marked.retryAt() < 0) {
        if (end < items.size()) {
          Item first = items.get(end);
          refuse(first, first.poison, !first.refusedByKafka, committer); // fail: throws
        }
        return;
      }
      int alreadyAcked = setAsideLaterRefusals(items, sent, outcomes, marked.next());
      metrics.resent(alreadyAcked);
      // the unacknowledged from retryAt
      metrics.retry(outcomes.size() - marked.next() + 1 - alreadyAcked);
      attempt++;
      publisher.reset();
      boolean nothingAcknowledged = marked.acknowledged() + alreadyAcked == 0;
      if (!awaitResend(items, marked, attempt, nothingAcknowledged)) {
        LOG.warn(
            "[{}] stopping: {} events of this batch were not acknowledged and will be read again"
                + " after restart",
            context,
            items.size() - marked.retryAt());
        return;
      }
      from = marked.retryAt();
    }
  }

  /**
   * Sends the items from {@code from} up to {@code end} and, last, the position after them to the
   * progress topic, in one Kafka transaction, and commits it once Kafka acknowledged every record:
   * a {@code read_committed} consumer sees all of them or none. When the transaction does not
   * commit, every record fails ({@link KafkaPublisher.NotCommittedException} for those Kafka had
   * acknowledged) and the caller sends them again in a new one.
   *
   * @return one outcome per record of {@code batch}; null when nothing more may be sent in this
   *     term (another relay's producer fenced this one, or the commit failed and only the next term
   *     can tell whether it happened): nothing is marked, and the next term resumes at the position
   *     committed in Kafka
   * @throws RelayFailure when Kafka refuses the position record in a way retrying cannot fix
   */
  private List<KafkaPublisher.Outcome> sendInTransaction(
      List<Item> items, int from, int end, List<RoutedRecord> batch) throws InterruptedException {
    if (exactlyOnce.isEnded()) {
      return null;
    }
    String position = null;
    for (int i = end - 1; i >= from && position == null; i--) {
      RecordChangeEvent<SourceRecord> change = items.get(i).change;
      if (change != null && change.record().sourceOffset() != null) {
        position = CommittedPosition.json(change.record().sourceOffset());
      }
    }
    List<RoutedRecord> records = new ArrayList<>(batch);
    if (position != null) {
      records.add(exactlyOnce.progressRecord(position));
    }
    if (records.isEmpty()) {
      return List.of();
    }
    KafkaPublisher.Transaction tx =
        exactlyOnce
            .publisher()
            .sendInTransaction(records, this::shouldAbandonRetries, this::stopsSending);
    exactlyOnce.counted(tx);
    if (ExactlyOnce.isFenced(tx)) {
      exactlyOnce.fenced("another producer of the transactional id started: another relay leads");
      return null;
    }
    if (tx.commitError() != null) {
      exactlyOnce.fenced(
          "committing a transaction failed ("
              + ErrorClassifier.describe(tx.commitError())
              + "), and only the next holder of the transactional id can tell whether it"
              + " committed");
      return null;
    }
    if (position != null && !tx.committed()) {
      KafkaPublisher.Outcome progress = tx.outcomes().get(records.size() - 1);
      SendVerdict verdict = progress.verdict();
      if (verdict == SendVerdict.DEAD || verdict == SendVerdict.STOP) {
        throw new RelayFailure(
            "Kafka refused the relay's position record ("
                + ErrorClassifier.describe(progress.error())
                + "): grant Write on the progress topic (delivery.progress.topic) and check that"
                + " it exists; the relay resumes at the last committed position",
            progress.error());
      }
    }
    return tx.outcomes().subList(0, batch.size());
  }

  /**
   * How far one send was marked.
   *
   * @param retryAt the first item to send again, or -1 when none
   * @param cause why it is sent again
   * @param next the index of its outcome plus one: the outcomes from here on were not marked
   * @param acknowledged how many records were marked acknowledged
   */
  private record Marked(int retryAt, Throwable cause, int next, int acknowledged) {}

  /**
   * Marks the items from {@code from} up to {@code end} in order, each as its send's verdict says,
   * up to the first one to send again: acknowledged, or refused (poison that is skipped). Nothing
   * after an item to send again is marked, whatever its outcome.
   */
  private Marked markInOrder(
      List<Item> items,
      int from,
      int end,
      List<KafkaPublisher.Outcome> outcomes,
      DebeziumEngine.RecordCommitter<RecordChangeEvent<SourceRecord>> committer)
      throws InterruptedException {
    int next = 0; // index into outcomes: one per item with a routed record
    int acknowledged = 0;
    for (int i = from; i < end; i++) {
      Item it = items.get(i);
      if (it.routed == null) {
        if (it.poison != null) {
          refuse(it, it.poison, !it.refusedByKafka, committer); // fail stops before these
        }
        committer.markProcessed(it.change);
        continue;
      }
      KafkaPublisher.Outcome outcome = outcomes.get(next++);
      SendVerdict verdict = outcome.verdict();
      if (verdict == SendVerdict.PUBLISHED) {
        committer.markProcessed(it.change);
        metrics.observeCreatedAt(it.event.createdAt());
        acknowledged++;
      } else if (!verdict.sendsAgain()) {
        refuse(it, outcome.error(), false, committer);
        committer.markProcessed(it.change);
      } else {
        return new Marked(i, outcome.error(), next, acknowledged);
      }
    }
    return new Marked(-1, null, next, acknowledged);
  }

  /**
   * Looks at the outcomes after the record to send again: counts those Kafka acknowledged (they
   * will be duplicates), and sets aside those it refused, whose refusal may be what aborted the
   * record to send again: they are not sent again, and with fail the re-sending stops before them.
   *
   * @return how many were already acknowledged
   */
  private static int setAsideLaterRefusals(
      List<Item> items, List<Integer> sent, List<KafkaPublisher.Outcome> outcomes, int next) {
    int alreadyAcked = 0;
    for (int k = next; k < outcomes.size(); k++) {
      SendVerdict verdict = outcomes.get(k).verdict();
      if (verdict == SendVerdict.PUBLISHED) {
        alreadyAcked++;
      } else if (!verdict.sendsAgain()) {
        Item refused = items.get(sent.get(k));
        refused.routed = null;
        refused.poison = outcomes.get(k).error();
        refused.refusedByKafka = true;
      }
    }
    return alreadyAcked;
  }

  /**
   * Waits before the re-send: until Kafka answers when the failure is Kafka's as a whole (see
   * {@link KafkaBreaker#isDownAfterFailedSend}), otherwise the backoff of this attempt.
   *
   * @return true when the re-send may go ahead, false when the batch is given up (stopping, or the
   *     leadership no longer sure)
   */
  private boolean awaitResend(
      List<Item> items, Marked marked, int attempt, boolean nothingAcknowledged)
      throws InterruptedException {
    int left = items.size() - marked.retryAt();
    if (kafka.isDownAfterFailedSend(
        nothingAcknowledged, KAFKA_PROBE_BUDGET, ErrorClassifier.describe(marked.cause()))) {
      LOG.debug("[{}] Kafka is unreachable: re-sending {} events once it answers", context, left);
      return kafka.awaitClosed(() -> !gate.shouldAbandonRetries());
    }
    Duration pause = backoff.delay(attempt);
    LOG.warn(
        "[{}] Kafka did not acknowledge event_id={} (attempt {}, {}); re-sending {} events from"
            + " it in {} ms",
        context,
        items.get(marked.retryAt()).event.eventId(),
        attempt,
        ErrorClassifier.describe(marked.cause()),
        left,
        pause.toMillis());
    return pauseUnlessStopping(pause);
  }

  /** How long the question whether Kafka answers may take after a failed send. */
  private static final Duration KAFKA_PROBE_BUDGET = Duration.ofSeconds(3);

  /** The index of the first event from {@code from} on known to be poison, or the size. */
  private static int firstPoison(List<Item> items, int from) {
    for (int i = from; i < items.size(); i++) {
      if (items.get(i).poison != null) {
        return i;
      }
    }
    return items.size();
  }

  /**
   * An event that cannot be published: a failure that needs an operator stops the relay at it;
   * poison follows the poison action.
   */
  private void refuse(
      Item it,
      Throwable error,
      boolean beforeSending,
      DebeziumEngine.RecordCommitter<RecordChangeEvent<SourceRecord>> committer)
      throws InterruptedException {
    if (SendVerdict.of(error) == SendVerdict.STOP) {
      committer.markBatchFinished();
      throw new RelayFailure(
          "Kafka refused "
              + describe(it)
              + " in a way retrying cannot fix ("
              + ErrorClassifier.describe(error)
              + "): fix the Kafka credentials or"
              + " ACLs and restart; the relay will resume at this event",
          error);
    }
    poison(it, error, beforeSending, committer);
  }

  /**
   * Which failures stop the sending of the rest of the batch: those that stop the relay at the
   * failed event, so that nothing after it reaches Kafka before it.
   */
  private boolean stopsSending(Throwable error) {
    return SendVerdict.of(error).stopsTheRest(poisonAction == PoisonAction.FAIL);
  }

  private void poison(
      Item it,
      Throwable error,
      boolean beforeSending,
      DebeziumEngine.RecordCommitter<RecordChangeEvent<SourceRecord>> committer)
      throws InterruptedException {
    String id = describe(it);
    String reason = ErrorClassifier.describe(error);
    if (poisonAction == PoisonAction.FAIL) {
      committer.markBatchFinished(); // commit the position just before the poison event
      throw new RelayFailure(
          "cannot publish "
              + id
              + ": "
              + (reason.endsWith(".") ? reason.substring(0, reason.length() - 1) : reason)
              + ". "
              + PoisonHint.whatToDo(error, beforeSending)
              + ". The position is kept just before this event",
          error);
    }
    metrics.skipped(it.event == null ? null : it.event.eventType());
    LOG.error("[{}] skipping {} that cannot be published: {}", context, id, reason);
  }

  /** The event's id and aggregate, for messages (never its payload). */
  private static String describe(Item it) {
    if (it.event == null) {
      return "a row";
    }
    return it.event.describe();
  }

  /** Sleeps for the pause unless a stop passes its deadline first; true when it slept fully. */
  private boolean pauseUnlessStopping(Duration pause) throws InterruptedException {
    long until = System.nanoTime() + pause.toNanos();
    while (System.nanoTime() < until) {
      if (shouldAbandonRetries()) {
        return false;
      }
      long left = until - System.nanoTime();
      Thread.sleep(Math.max(1, Math.min(100, left / 1_000_000)));
    }
    return !shouldAbandonRetries();
  }

  /** Give up retrying: stopping past the drain deadline, or leadership is no longer sure. */
  private boolean shouldAbandonRetries() {
    return gate.shouldAbandonRetries() || !mayPublish.getAsBoolean();
  }

  /** Whether leadership is still sure; says once when it is not. */
  private boolean mayPublishNow() {
    if (mayPublish.getAsBoolean()) {
      return true;
    }
    if (!dropping) {
      dropping = true;
      LOG.warn(
          "[{}] the lease is no longer sure to be held: publishing nothing more; what is not"
              + " acknowledged is published by the next leader",
          context);
    }
    return false;
  }

  @Override
  public boolean supportsTombstoneEvents() {
    return false;
  }
}
