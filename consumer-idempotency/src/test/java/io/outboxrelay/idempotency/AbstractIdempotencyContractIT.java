package io.outboxrelay.idempotency;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.outboxrelay.idempotency.testing.TestDatabase;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The idempotency contract: what the processor must do on every supported database, against the
 * real database. A subclass of about twenty lines supplies the database.
 */
abstract class AbstractIdempotencyContractIT {

  private static final Duration WAIT = Duration.ofSeconds(20);

  /** A fresh database with the schema of {@code config/<dialect>/processed-events.sql}. */
  protected abstract TestDatabase newDatabase();

  protected TestDatabase db;
  protected String group;
  private final ExecutorService executor = Executors.newCachedThreadPool();

  @BeforeEach
  void setUp() {
    db = newDatabase();
    group = "group-" + UUID.randomUUID();
  }

  @AfterEach
  void tearDown() throws InterruptedException {
    executor.shutdownNow();
    executor.awaitTermination(30, TimeUnit.SECONDS);
    db.close();
  }

  private IdempotentProcessor processor() {
    return IdempotentProcessor.builder(db.dataSource(), group).build();
  }

  private IdempotentProcessor versionChecking(GapPolicy policy) {
    return IdempotentProcessor.builder(db.dataSource(), group).versionCheck(policy).build();
  }

  private IdempotentProcessor conflictChecking() {
    return IdempotentProcessor.builder(db.dataSource(), group).conflictCheck().build();
  }

  /** Event {@code eventId} with {@code payload} as its payload bytes (UTF-8). */
  private static EventRef withPayload(String eventId, String payload) {
    return EventRef.of(eventId).withPayload(payload.getBytes(StandardCharsets.UTF_8));
  }

  /** Delivers event {@code eventId} of order {@code orderId} at {@code version}, effect 1. */
  private static Outcome deliverVersion(
      IdempotentProcessor processor, String eventId, String orderId, long version)
      throws Exception {
    return processor.process(EventRef.of(eventId, "order", orderId, version), effect(eventId, 1));
  }

  private static final EventHandler NOTHING_MORE = c -> {};

  private static final EventHandler FIRST_DELIVERY_FAILS =
      c -> {
        throw new IllegalStateException("first delivery fails");
      };

  private static EventHandler effect(String eventId, long amount) {
    return c -> TestDatabase.applyEffect(c, eventId, amount);
  }

  /** Applies the effect, then fails with {@code failure}, so the transaction rolls back. */
  private static EventHandler effectThenThrow(String eventId, long amount, Exception failure) {
    return c -> {
      TestDatabase.applyEffect(c, eventId, amount);
      throw failure;
    };
  }

  /**
   * Starts a delivery whose handler runs {@code before}, then holds its transaction (and so its
   * lock on the event id) open until {@code release} counts down, then runs {@code after}. Returns
   * once the delivery holds.
   */
  private Future<Outcome> submitHeld(
      IdempotentProcessor processor,
      String id,
      EventHandler before,
      CountDownLatch release,
      EventHandler after)
      throws InterruptedException {
    return submitHeld(processor, EventRef.of(id), before, release, after);
  }

  private Future<Outcome> submitHeld(
      IdempotentProcessor processor,
      EventRef event,
      EventHandler before,
      CountDownLatch release,
      EventHandler after)
      throws InterruptedException {
    CountDownLatch inHandler = new CountDownLatch(1);
    Future<Outcome> delivery =
        executor.submit(
            () ->
                processor.process(
                    event,
                    c -> {
                      before.handle(c);
                      inHandler.countDown();
                      release.await();
                      after.handle(c);
                    }));
    assertThat(inHandler.await(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
    return delivery;
  }

  /**
   * Starts {@code count} deliveries of event {@code id} with effect {@code amount} while another
   * delivery holds it, and returns once all of them wait for its lock.
   */
  private List<Future<Outcome>> submitWaiting(
      IdempotentProcessor processor, String id, long amount, int count) {
    List<Future<Outcome>> waiting = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      waiting.add(executor.submit(() -> processor.process(id, effect(id, amount))));
    }
    await().atMost(WAIT).until(() -> db.sessionsWaitingForLocks() == count);
    return waiting;
  }

  /** Starts a delivery that waits at {@code start} until all its peers are ready. */
  private Future<Outcome> submitAfter(CyclicBarrier start, Callable<Outcome> delivery) {
    return executor.submit(
        () -> {
          start.await();
          return delivery.call();
        });
  }

  private static List<Outcome> outcomesOf(List<Future<Outcome>> deliveries) throws Exception {
    List<Outcome> results = new ArrayList<>();
    for (Future<Outcome> delivery : deliveries) {
      results.add(delivery.get(WAIT.toSeconds(), TimeUnit.SECONDS));
    }
    return results;
  }

  private static String newId() {
    return UUID.randomUUID().toString();
  }

  @Test
  void appliesAnEventDeliveredTwiceOnlyOnce() throws Exception {
    IdempotentProcessor processor = processor();
    String id = newId();

    assertThat(processor.process(id, effect(id, 10))).isEqualTo(Outcome.PROCESSED);
    assertThat(processor.process(id, effect(id, 10))).isEqualTo(Outcome.DUPLICATE);

    assertThat(db.effects(id)).isEqualTo(1);
    assertThat(db.totalAmount()).isEqualTo(10);
    assertThat(db.processedRows(group)).isEqualTo(1);
    assertThat(processor.counters()).isEqualTo(new Counters(1, 1, 0, 0, 0, 0));
  }

  @Test
  void keepsTheProcessedIdsOfEachConsumerGroupApart() throws Exception {
    String id = newId();
    processor().process(id, effect(id, 1));

    IdempotentProcessor other = IdempotentProcessor.builder(db.dataSource(), "other-group").build();

    assertThat(other.process(id, effect(id, 1))).isEqualTo(Outcome.PROCESSED);
    assertThat(db.effects(id)).isEqualTo(2);
  }

  @Test
  void appliesAnEventDeliveredConcurrentlyOnceAndTheSecondDeliveryWaitsForTheFirst()
      throws Exception {
    IdempotentProcessor processor = processor();
    String id = newId();
    CountDownLatch releaseFirst = new CountDownLatch(1);
    Future<Outcome> first = submitHeld(processor, id, effect(id, 1), releaseFirst, NOTHING_MORE);

    Future<Outcome> second = submitWaiting(processor, id, 2, 1).get(0);
    assertThat(second).isNotDone();
    releaseFirst.countDown();

    assertThat(first.get(WAIT.toSeconds(), TimeUnit.SECONDS)).isEqualTo(Outcome.PROCESSED);
    assertThat(second.get(WAIT.toSeconds(), TimeUnit.SECONDS)).isEqualTo(Outcome.DUPLICATE);
    assertThat(db.effects(id)).isEqualTo(1);
    assertThat(db.totalAmount()).isEqualTo(1);
  }

  @Test
  void letsTheWaitingDeliveryProceedWhenTheFirstRollsBack() throws Exception {
    IdempotentProcessor processor = processor();
    String id = newId();
    CountDownLatch releaseFirst = new CountDownLatch(1);
    Future<Outcome> first =
        submitHeld(processor, id, effect(id, 1), releaseFirst, FIRST_DELIVERY_FAILS);

    Future<Outcome> second = submitWaiting(processor, id, 2, 1).get(0);
    releaseFirst.countDown();

    assertThatThrownBy(() -> first.get(WAIT.toSeconds(), TimeUnit.SECONDS))
        .isInstanceOf(ExecutionException.class)
        .hasRootCauseMessage("first delivery fails");
    assertThat(second.get(WAIT.toSeconds(), TimeUnit.SECONDS)).isEqualTo(Outcome.PROCESSED);
    assertThat(db.effects(id)).isEqualTo(1);
    assertThat(db.totalAmount()).isEqualTo(2);
  }

  /** Guards the internal retry of a deadlocked insert (InnoDB picks victims among the waiters). */
  @Test
  void appliesAnEventOnceWithoutFailuresWhenThreeDeliveriesWaitAndTheFirstRollsBack()
      throws Exception {
    IdempotentProcessor processor = processor();
    String id = newId();
    CountDownLatch releaseFirst = new CountDownLatch(1);
    Future<Outcome> first =
        submitHeld(processor, id, NOTHING_MORE, releaseFirst, FIRST_DELIVERY_FAILS);
    List<Future<Outcome>> waiting = submitWaiting(processor, id, 1, 3);

    releaseFirst.countDown();

    assertThatThrownBy(() -> first.get(WAIT.toSeconds(), TimeUnit.SECONDS))
        .hasRootCauseMessage("first delivery fails");
    List<Outcome> results = outcomesOf(waiting);
    assertThat(results)
        .containsExactlyInAnyOrder(Outcome.PROCESSED, Outcome.DUPLICATE, Outcome.DUPLICATE);
    assertThat(db.effects(id)).isEqualTo(1);
  }

  @Test
  void appliesAnEventDeliveredByManyThreadsAtOnceExactlyOnceWithoutDeadlock() throws Exception {
    IdempotentProcessor processor = processor();
    String id = newId();
    int threads = 6;
    CyclicBarrier start = new CyclicBarrier(threads);
    List<Future<Outcome>> outcomes = new ArrayList<>();
    for (int i = 0; i < threads; i++) {
      outcomes.add(submitAfter(start, () -> processor.process(id, effect(id, 1))));
    }

    List<Outcome> results = outcomesOf(outcomes);

    assertThat(results).containsOnlyOnce(Outcome.PROCESSED);
    assertThat(results).filteredOn(o -> o == Outcome.DUPLICATE).hasSize(threads - 1);
    assertThat(db.effects(id)).isEqualTo(1);
  }

  @Test
  void rollsBackTheEventIdAndTheBusinessChangeWhenTheHandlerFailsAndALaterRetrySucceeds()
      throws Exception {
    IdempotentProcessor processor = processor();
    String id = newId();
    IllegalStateException failure = new IllegalStateException("business rule violated");

    assertThatThrownBy(() -> processor.process(id, effectThenThrow(id, 5, failure)))
        .isSameAs(failure);
    assertThat(db.effects(id)).isZero();
    assertThat(db.processedRows(group)).isZero();

    assertThat(processor.process(id, effect(id, 5))).isEqualTo(Outcome.PROCESSED);
    assertThat(db.effects(id)).isEqualTo(1);
    assertThat(processor.counters()).isEqualTo(new Counters(1, 0, 0, 0, 1, 0));
  }

  @Test
  void wrapsACheckedHandlerFailureAfterRollingBack() throws Exception {
    IdempotentProcessor processor = processor();
    String id = newId();
    Exception failure = new java.io.IOException("remote service unreachable");

    assertThatThrownBy(() -> processor.process(id, effectThenThrow(id, 5, failure)))
        .isInstanceOf(EventProcessingException.class)
        .hasCause(failure)
        .satisfies(e -> assertThat(((EventProcessingException) e).eventId()).isEqualTo(id));
    assertThat(db.effects(id)).isZero();
    assertThat(db.isRecorded(group, id)).isFalse();
  }

  @Test
  void refusesAHandlerThatTriesToEndTheTransactionItself() throws Exception {
    IdempotentProcessor processor = processor();
    String id = newId();

    assertThatThrownBy(
            () ->
                processor.process(
                    id,
                    c -> {
                      TestDatabase.applyEffect(c, id, 1);
                      c.commit();
                    }))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("must not call Connection.commit()");
    assertThatThrownBy(() -> processor.process(id, c -> c.setAutoCommit(true)))
        .isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> processor.process(id, Connection::close))
        .isInstanceOf(IllegalStateException.class);

    assertThat(db.effects(id)).isZero();
    assertThat(db.isRecorded(group, id)).isFalse();
  }

  @Test
  void skipsEventsWhoseAggregateVersionIsNotNewerThanTheAppliedOne() throws Exception {
    IdempotentProcessor processor = versionChecking(GapPolicy.ACCEPT);

    assertThat(deliverVersion(processor, "e1", "o-1", 1)).isEqualTo(Outcome.PROCESSED);
    assertThat(deliverVersion(processor, "e2", "o-1", 2)).isEqualTo(Outcome.PROCESSED);
    assertThat(deliverVersion(processor, "e3", "o-1", 2)).isEqualTo(Outcome.STALE);
    assertThat(deliverVersion(processor, "e4", "o-1", 1)).isEqualTo(Outcome.STALE);
    assertThat(deliverVersion(processor, "e3", "o-1", 2)).isEqualTo(Outcome.DUPLICATE);
    assertThat(deliverVersion(processor, "e5", "o-2", 1)).isEqualTo(Outcome.PROCESSED);

    assertThat(db.allEffects()).isEqualTo(3);
    assertThat(db.effects("e3")).isZero();
    assertThat(db.isRecorded(group, "e3")).isTrue();
    assertThat(db.lastVersion(group, "order", "o-1")).isEqualTo(2);
    assertThat(processor.counters()).isEqualTo(new Counters(3, 1, 2, 0, 0, 0));
  }

  @Test
  void appliesAVersionThatSkipsAheadUnderTheAcceptPolicy() throws Exception {
    IdempotentProcessor processor = versionChecking(GapPolicy.ACCEPT);

    deliverVersion(processor, "e1", "o-1", 1);

    assertThat(deliverVersion(processor, "e3", "o-1", 3)).isEqualTo(Outcome.PROCESSED);
    assertThat(deliverVersion(processor, "e2", "o-1", 2)).isEqualTo(Outcome.STALE);
    assertThat(db.lastVersion(group, "order", "o-1")).isEqualTo(3);
  }

  @Test
  void rejectsAVersionThatSkipsAheadUntilTheMissingVersionIsApplied() throws Exception {
    IdempotentProcessor processor = versionChecking(GapPolicy.REJECT);

    assertThat(deliverVersion(processor, "e5", "o-1", 5))
        .as("the first version seen is accepted whatever its value")
        .isEqualTo(Outcome.PROCESSED);
    assertThatThrownBy(() -> deliverVersion(processor, "e7", "o-1", 7))
        .isInstanceOf(VersionGapException.class)
        .hasMessageContaining("last applied version is 5")
        .satisfies(e -> assertThat(((VersionGapException) e).lastAppliedVersion()).isEqualTo(5));
    assertThat(db.isRecorded(group, "e7")).isFalse();
    assertThat(db.effects("e7")).isZero();

    assertThat(deliverVersion(processor, "e6", "o-1", 6)).isEqualTo(Outcome.PROCESSED);
    assertThat(deliverVersion(processor, "e7", "o-1", 7)).isEqualTo(Outcome.PROCESSED);
    assertThat(db.lastVersion(group, "order", "o-1")).isEqualTo(7);
  }

  @Test
  void concurrentEventsOfOneNewAggregateNeitherDeadlockNorLowerItsVersion() throws Exception {
    IdempotentProcessor processor = versionChecking(GapPolicy.ACCEPT);
    int threads = 6;
    CyclicBarrier start = new CyclicBarrier(threads);
    List<Future<Outcome>> outcomes = new ArrayList<>();
    for (int v = 1; v <= threads; v++) {
      String id = "e" + v;
      long version = v;
      outcomes.add(submitAfter(start, () -> deliverVersion(processor, id, "o-1", version)));
    }

    long applied = 0;
    for (Future<Outcome> outcome : outcomes) {
      Outcome o = outcome.get(WAIT.toSeconds(), TimeUnit.SECONDS);
      assertThat(o).isIn(Outcome.PROCESSED, Outcome.STALE);
      applied += o == Outcome.PROCESSED ? 1 : 0;
    }

    assertThat(outcomes.get(threads - 1).get()).isEqualTo(Outcome.PROCESSED);
    assertThat(db.lastVersion(group, "order", "o-1")).isEqualTo(threads);
    assertThat(db.allEffects()).isEqualTo(applied);
    assertThat(db.processedRows(group)).isEqualTo(threads);
  }

  /**
   * Admits {@code event} in a transaction of the test's own on one connection, applies the effect
   * when admitted, then commits (or rolls back when {@code commit} is false).
   */
  private Outcome admitInOwnTransaction(
      IdempotentProcessor processor, EventRef event, boolean commit) throws Exception {
    try (Connection c = db.connect()) {
      c.setAutoCommit(false);
      try {
        Outcome outcome = processor.admit(c, event);
        if (outcome == Outcome.PROCESSED) {
          TestDatabase.applyEffect(c, event.eventId(), 1);
        }
        if (commit) {
          c.commit();
        } else {
          c.rollback();
        }
        return outcome;
      } catch (Exception e) {
        c.rollback();
        throw e;
      }
    }
  }

  @Test
  void admitsAnEventInTheCallersTransactionWhichCommitsOrRollsBackItsIdWithTheChange()
      throws Exception {
    IdempotentProcessor processor = processor();
    String id = newId();

    assertThat(admitInOwnTransaction(processor, EventRef.of(id), false))
        .isEqualTo(Outcome.PROCESSED);
    assertThat(db.isRecorded(group, id)).isFalse();
    assertThat(db.effects(id)).isZero();

    assertThat(admitInOwnTransaction(processor, EventRef.of(id), true))
        .isEqualTo(Outcome.PROCESSED);
    assertThat(admitInOwnTransaction(processor, EventRef.of(id), true))
        .isEqualTo(Outcome.DUPLICATE);
    assertThat(processor.process(id, effect(id, 1))).isEqualTo(Outcome.DUPLICATE);

    assertThat(db.effects(id)).isEqualTo(1);
    assertThat(db.processedRows(group)).isEqualTo(1);
  }

  @Test
  void admitsVersionsLikeProcessAndRefusesAConnectionInAutoCommitMode() throws Exception {
    IdempotentProcessor processor = versionChecking(GapPolicy.REJECT);

    assertThat(admitInOwnTransaction(processor, EventRef.of("e1", "order", "o-1", 1), true))
        .isEqualTo(Outcome.PROCESSED);
    assertThat(admitInOwnTransaction(processor, EventRef.of("e0", "order", "o-1", 1), true))
        .isEqualTo(Outcome.STALE);
    assertThatThrownBy(
            () -> admitInOwnTransaction(processor, EventRef.of("e3", "order", "o-1", 3), true))
        .isInstanceOf(VersionGapException.class);
    try (Connection c = db.connect()) {
      c.setAutoCommit(true);
      assertThatThrownBy(() -> processor.admit(c, EventRef.of("e2", "order", "o-1", 2)))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("auto-commit");
    }

    assertThat(db.isRecorded(group, "e0")).isTrue();
    assertThat(db.isRecorded(group, "e2")).isFalse();
    assertThat(db.isRecorded(group, "e3")).isFalse();
    assertThat(db.allEffects()).isEqualTo(1);
    assertThat(db.lastVersion(group, "order", "o-1")).isEqualTo(1);
  }

  @Test
  void deletesOldProcessedIdsInBatchesAndKeepsRecentOnesAndOtherGroups() throws Exception {
    IdempotentProcessor processor =
        IdempotentProcessor.builder(db.dataSource(), group).purgeBatchSize(1_000).build();
    insertProcessedRows(group, "old-", 2_500, 3);
    insertProcessedRows("other-group", "other-", 20, 3);
    for (int i = 0; i < 10; i++) {
      processor.process("recent-" + i, c -> {});
    }

    PurgeResult result = processor.purgeOlderThan(Duration.ofDays(1));

    assertThat(result.deletedRows()).isEqualTo(2_500);
    assertThat(result.batches()).isEqualTo(3);
    assertThat(result.cutoff())
        .isBetween(
            java.time.Instant.now().minus(Duration.ofDays(1)).minus(Duration.ofMinutes(5)),
            java.time.Instant.now().minus(Duration.ofDays(1)).plus(Duration.ofMinutes(5)));
    assertThat(db.processedRows(group)).isEqualTo(10);
    assertThat(db.processedRows("other-group")).isEqualTo(20);
    assertThat(processor.purgeOlderThan(Duration.ofDays(1)))
        .satisfies(again -> assertThat(again.deletedRows()).isZero())
        .satisfies(again -> assertThat(again.batches()).isEqualTo(1));
  }

  @Test
  void worksWithCustomTableNamesAndAnExplicitDialect() throws Exception {
    db.createSchemaWithTableNames("billing_processed", "billing_versions");
    IdempotentProcessor processor =
        IdempotentProcessor.builder(db.dataSource(), group)
            .dialect(db.dialect())
            .processedEventsTable("billing_processed")
            .aggregateVersionsTable("billing_versions")
            .versionCheck(GapPolicy.ACCEPT)
            .build();

    assertThat(deliverVersion(processor, "e1", "o-1", 1)).isEqualTo(Outcome.PROCESSED);
    assertThat(deliverVersion(processor, "e1", "o-1", 1)).isEqualTo(Outcome.DUPLICATE);

    assertThat(db.queryLong("SELECT COUNT(*) FROM billing_processed")).isEqualTo(1);
    assertThat(db.queryLong("SELECT last_version FROM billing_versions")).isEqualTo(1);
    assertThat(db.processedRows(group)).isZero();
  }

  @Test
  void reportsAnotherEventUnderAnIdAlreadyProcessedAsAConflictAndChangesNothing() throws Exception {
    IdempotentProcessor processor = conflictChecking();
    String id = newId();
    EventRef first = withPayload(id, "{\"amount\":10}");

    assertThat(processor.process(first, effect(id, 10))).isEqualTo(Outcome.PROCESSED);
    assertThat(processor.process(withPayload(id, "{\"amount\":10}"), effect(id, 10)))
        .as("the same bytes again: a redelivery")
        .isEqualTo(Outcome.DUPLICATE);
    assertThat(processor.process(withPayload(id, "{\"amount\":99}"), effect(id, 99)))
        .as("other bytes under the same id: another event")
        .isEqualTo(Outcome.CONFLICT);

    assertThat(db.effects(id)).isEqualTo(1);
    assertThat(db.totalAmount()).isEqualTo(10);
    assertThat(db.processedRows(group)).isEqualTo(1);
    assertThat(db.payloadHash(group, id)).isEqualTo(first.payloadHash());
    assertThat(processor.counters()).isEqualTo(new Counters(1, 1, 0, 1, 0, 0));
  }

  @Test
  void recordsThePayloadHashOfAStaleEventSoItsConflictsAreFoundToo() throws Exception {
    IdempotentProcessor processor =
        IdempotentProcessor.builder(db.dataSource(), group)
            .versionCheck(GapPolicy.ACCEPT)
            .conflictCheck()
            .build();
    byte[] v2 = "{\"v\":2}".getBytes(StandardCharsets.UTF_8);
    byte[] other = "{\"v\":1}".getBytes(StandardCharsets.UTF_8);

    deliverVersion(processor, "e2", "o-1", 2);
    assertThat(
            processor.process(EventRef.of("e1", "order", "o-1", 2).withPayload(v2), NOTHING_MORE))
        .isEqualTo(Outcome.STALE);
    assertThat(
            processor.process(
                EventRef.of("e1", "order", "o-1", 2).withPayload(other), NOTHING_MORE))
        .isEqualTo(Outcome.CONFLICT);
    assertThat(db.payloadHash(group, "e1"))
        .isEqualTo(EventRef.of("e1").withPayload(v2).payloadHash());
  }

  @Test
  void takesAnIdWithOtherBytesForADuplicateWhenTheConflictCheckIsOff() throws Exception {
    IdempotentProcessor processor = processor();
    String id = newId();

    assertThat(processor.process(withPayload(id, "{\"amount\":10}"), effect(id, 10)))
        .isEqualTo(Outcome.PROCESSED);
    assertThat(processor.process(withPayload(id, "{\"amount\":99}"), effect(id, 99)))
        .isEqualTo(Outcome.DUPLICATE);

    assertThat(db.payloadHash(group, id)).as("nothing recorded with the check off").isNull();
    assertThat(db.totalAmount()).isEqualTo(10);
    assertThat(processor.counters().conflicts()).isZero();
  }

  @Test
  void takesAnIdRecordedWithoutAHashOrAnEventWithoutOneForADuplicate() throws Exception {
    String old = newId();
    processor().process(withPayload(old, "{\"amount\":10}"), effect(old, 10));
    IdempotentProcessor checking = conflictChecking();
    String unhashed = newId();

    assertThat(checking.process(withPayload(old, "{\"amount\":99}"), effect(old, 99)))
        .as("a row recorded with the check off has no hash to compare")
        .isEqualTo(Outcome.DUPLICATE);
    assertThat(checking.process(EventRef.of(unhashed), effect(unhashed, 1)))
        .isEqualTo(Outcome.PROCESSED);
    assertThat(db.payloadHash(group, unhashed)).isNull();
    assertThat(checking.process(withPayload(unhashed, "{}"), effect(unhashed, 1)))
        .isEqualTo(Outcome.DUPLICATE);
    assertThat(checking.process(EventRef.of(old), effect(old, 1)))
        .as("an event without a hash has none to compare")
        .isEqualTo(Outcome.DUPLICATE);

    assertThat(db.totalAmount()).isEqualTo(11);
    assertThat(checking.counters()).isEqualTo(new Counters(1, 3, 0, 0, 0, 0));
  }

  @Test
  void findsTheConflictOfADeliveryThatWaitedForTheFirstOneToCommit() throws Exception {
    IdempotentProcessor processor = conflictChecking();
    String id = newId();
    CountDownLatch releaseFirst = new CountDownLatch(1);
    Future<Outcome> first =
        submitHeld(
            processor,
            withPayload(id, "{\"amount\":1}"),
            effect(id, 1),
            releaseFirst,
            NOTHING_MORE);
    Future<Outcome> second =
        executor.submit(() -> processor.process(withPayload(id, "{\"amount\":2}"), effect(id, 2)));
    await().atMost(WAIT).until(() -> db.sessionsWaitingForLocks() == 1);

    releaseFirst.countDown();

    assertThat(first.get(WAIT.toSeconds(), TimeUnit.SECONDS)).isEqualTo(Outcome.PROCESSED);
    assertThat(second.get(WAIT.toSeconds(), TimeUnit.SECONDS)).isEqualTo(Outcome.CONFLICT);
    assertThat(db.totalAmount()).isEqualTo(1);
  }

  @Test
  void worksWithoutThePayloadHashColumnWhileTheCheckIsOffAndNamesTheMigrationWhenItIsOn()
      throws Exception {
    db.dropPayloadHashColumn();
    String id = newId();
    assertThat(processor().process(withPayload(id, "{}"), effect(id, 1)))
        .isEqualTo(Outcome.PROCESSED);
    assertThat(processor().process(withPayload(id, "{\"other\":1}"), effect(id, 1)))
        .isEqualTo(Outcome.DUPLICATE);
    IdempotentProcessor checking = conflictChecking();
    String next = newId();

    assertThatThrownBy(() -> checking.process(withPayload(next, "{}"), effect(next, 1)))
        .isInstanceOf(SchemaMigrationRequiredException.class)
        .hasMessageContaining("has no payload_hash column")
        .hasMessageContaining(db.payloadHashMigration())
        .hasMessageNotContaining("\n");
    assertThat(db.isRecorded(group, next)).isFalse();
    assertThat(db.effects(next)).isZero();

    db.runSqlFile(db.payloadHashMigration());

    assertThat(checking.process(withPayload(next, "{}"), effect(next, 1)))
        .as("the same processor, once the migration ran")
        .isEqualTo(Outcome.PROCESSED);
    assertThat(checking.process(withPayload(next, "{\"other\":1}"), effect(next, 1)))
        .isEqualTo(Outcome.CONFLICT);
    assertThat(checking.process(withPayload(id, "{\"other\":2}"), effect(id, 1)))
        .as("a row from before the migration")
        .isEqualTo(Outcome.DUPLICATE);
    assertThat(db.allEffects()).isEqualTo(2);
  }

  private void insertProcessedRows(String consumerGroup, String prefix, int rows, int daysAgo)
      throws Exception {
    try (Connection c = db.connect();
        PreparedStatement insert =
            c.prepareStatement(
                "INSERT INTO processed_events (consumer_group, event_id, processed_at)"
                    + " VALUES (?, ?, "
                    + db.daysAgo(daysAgo)
                    + ")")) {
      c.setAutoCommit(false);
      for (int i = 0; i < rows; i++) {
        insert.setString(1, consumerGroup);
        insert.setString(2, prefix + i);
        insert.addBatch();
      }
      insert.executeBatch();
      c.commit();
    }
  }
}
