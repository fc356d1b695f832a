package io.outboxrelay.relay.source.polling;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import io.outboxrelay.relay.config.Ordering;
import io.outboxrelay.relay.config.PollingConfig;
import io.outboxrelay.relay.metrics.RelayMetrics;
import io.outboxrelay.relay.publish.KafkaBreaker;
import io.outboxrelay.relay.publish.KafkaPublisher;
import io.outboxrelay.relay.publish.TestBreakers;
import io.outboxrelay.relay.source.polling.OutboxStore.Failure;
import io.outboxrelay.relay.source.polling.OutboxStore.Failure.Kind;
import io.outboxrelay.router.OutboxEvent;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.ClusterAuthorizationException;
import org.apache.kafka.common.errors.NetworkException;
import org.apache.kafka.common.errors.NotLeaderOrFollowerException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.TimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * What a polling worker's finish does with each event of a sent batch, from Kafka's answer for it:
 * mark it published, bury it (DEAD), retry it counting an attempt, send it back to PENDING without
 * counting one (Kafka or the partition unavailable), or send it back and stop the relay. The
 * database side (claim, finish) is covered by the polling contract tests.
 */
class FinishPlannerTest {

  private static final int MAX_ATTEMPTS = 3;
  private static final Duration BACKOFF_INITIAL = Duration.ofMillis(400);

  private final RelayMetrics metrics = new RelayMetrics();

  /** Whether the breaker's metadata request finds Kafka answering. */
  private final AtomicBoolean kafkaAnswers = new AtomicBoolean(true);

  private final KafkaBreaker breaker = TestBreakers.answeringWhile(kafkaAnswers::get);
  private final FinishPlanner planner = planner();
  private final long leaseExpiresAt = System.nanoTime() + Duration.ofSeconds(30).toNanos();

  private FinishPlanner planner() {
    PollingConfig config =
        new PollingConfig(
            1,
            10,
            Duration.ofMillis(100),
            Duration.ofSeconds(30),
            Ordering.AGGREGATE,
            true,
            100,
            MAX_ATTEMPTS,
            BACKOFF_INITIAL,
            2,
            Duration.ofSeconds(10),
            Duration.ZERO,
            100,
            Duration.ofMinutes(1));
    return new FinishPlanner(
        "worker-1", "test", config, breaker, metrics, PollingWorker.finishMargin(config.lease()));
  }

  @AfterEach
  void closeBreaker() {
    breaker.close();
  }

  private static ClaimedEvent event(long id, int attempt) {
    return new ClaimedEvent(
        new OutboxEvent(
            id,
            "event-" + id,
            "order",
            "o-" + id,
            "OrderPlaced",
            "{}".getBytes(StandardCharsets.UTF_8),
            Instant.parse("2026-01-01T00:00:00Z")),
        attempt,
        Instant.parse("2026-01-01T00:00:01Z"));
  }

  /** Events 1 to {@code count}, each on its first attempt. */
  private static List<ClaimedEvent> onFirstAttempt(int count) {
    List<ClaimedEvent> events = new ArrayList<>();
    for (long id = 1; id <= count; id++) {
      events.add(event(id, 1));
    }
    return events;
  }

  private static KafkaPublisher.Outcome acknowledged() {
    return new KafkaPublisher.Outcome(
        new RecordMetadata(new TopicPartition("outbox.event.order", 0), 0, 0, 0, 0, 0), null);
  }

  private static KafkaPublisher.Outcome failed(Throwable error) {
    return new KafkaPublisher.Outcome(null, error);
  }

  private FinishPlanner.FinishPlan plan(List<ClaimedEvent> events, KafkaPublisher.Outcome... o)
      throws InterruptedException {
    return planner.plan(events, List.of(o), leaseExpiresAt);
  }

  private static Failure only(FinishPlanner.FinishPlan d) {
    assertThat(d.failures()).hasSize(1);
    return d.failures().get(0);
  }

  /** A metadata timeout: transient, and possibly the event's own. */
  private static TimeoutException notInMetadata() {
    return new TimeoutException("Topic t not present in metadata after 10000 ms.");
  }

  /**
   * Decides a batch of two events whose first Kafka acknowledged and whose second failed, the
   * second on its {@code attempt}.
   *
   * @return what becomes of the second
   */
  private Failure secondFails(int attempt, Throwable error) throws InterruptedException {
    FinishPlanner.FinishPlan d =
        plan(List.of(event(1, 1), event(2, attempt)), acknowledged(), failed(error));

    assertThat(d.acknowledged()).containsExactly(1L);
    assertThat(d.stop()).isNull();
    Failure second = only(d);
    assertThat(second.id()).isEqualTo(2L);
    return second;
  }

  @Test
  void marksEveryAcknowledgedEventPublishedAndNothingElse() throws Exception {
    FinishPlanner.FinishPlan d = plan(onFirstAttempt(2), acknowledged(), acknowledged());

    assertThat(d.acknowledged()).containsExactly(1L, 2L);
    assertThat(d.failures()).isEmpty();
    assertThat(d.stop()).isNull();
  }

  @Test
  void buriesAnEventKafkaCanNeverTakeAndGoesOnWithTheRest() throws Exception {
    FinishPlanner.FinishPlan d =
        plan(
            onFirstAttempt(3),
            acknowledged(),
            failed(new RecordTooLargeException("The message is 2000000 bytes")),
            acknowledged());

    assertThat(d.acknowledged()).containsExactly(1L, 3L);
    Failure dead = only(d);
    assertThat(dead.id()).isEqualTo(2L);
    assertThat(dead.kind()).isEqualTo(Kind.DEAD);
    assertThat(dead.reason()).contains("RecordTooLargeException").contains("2000000 bytes");
    assertThat(d.stop()).isNull();
    assertThat(metrics.snapshot().poison()).isEqualTo(1);
  }

  @Test
  void retriesATransientFailureWhileKafkaAnswersCountingTheAttempt() throws Exception {
    Failure retry = secondFails(1, notInMetadata());

    assertThat(retry.kind()).isEqualTo(Kind.RETRY);
    // The first retry waits the initial backoff, spread by up to 20% either way.
    assertThat(retry.retryIn()).isBetween(Duration.ofMillis(320), Duration.ofMillis(480));
    assertThat(retry.reason()).contains("not present in metadata");
    assertThat(metrics.snapshot().retries()).isEqualTo(1);
    assertThat(breaker.state()).isEqualTo(KafkaBreaker.State.CLOSED);
  }

  @Test
  void buriesATransientFailureOnTheLastAttempt() throws Exception {
    Failure dead = secondFails(MAX_ATTEMPTS, notInMetadata());

    assertThat(dead.kind()).isEqualTo(Kind.DEAD);
    assertThat(dead.reason()).startsWith("failed 3 of 3 attempts; last: ");
    assertThat(metrics.snapshot().retries()).isZero();
    assertThat(metrics.snapshot().poison()).isEqualTo(1);
  }

  @Test
  void countsNoAttemptWhenOnlyThePartitionIsUnavailableWhileKafkaAnswers() throws Exception {
    Failure released = secondFails(2, new NotLeaderOrFollowerException("not the leader"));

    assertThat(released.kind()).isEqualTo(Kind.RELEASE);
    assertThat(released.retryIn()).isBetween(Duration.ofMillis(320), Duration.ofMillis(480));
    assertThat(metrics.snapshot().retries()).isZero();
    assertThat(breaker.state()).isEqualTo(KafkaBreaker.State.CLOSED);
  }

  @Test
  void sendsEverythingBackWithoutAnAttemptAndOpensTheBreakerWhenKafkaDoesNotAnswer()
      throws Exception {
    kafkaAnswers.set(false);

    FinishPlanner.FinishPlan d =
        plan(
            List.of(event(1, 1), event(2, 2)),
            failed(new NetworkException("connection lost")),
            failed(new TimeoutException("Expiring 1 record(s): 120000 ms has passed")));

    assertThat(d.acknowledged()).isEmpty();
    assertThat(d.failures()).extracting(Failure::id).containsExactly(1L, 2L);
    assertThat(d.failures())
        .allSatisfy(
            f -> {
              assertThat(f.kind()).isEqualTo(Kind.RELEASE);
              assertThat(f.retryIn()).isEqualTo(FinishPlanner.RELEASE_DELAY);
              assertThat(f.reason()).startsWith("Kafka unavailable: ");
            });
    assertThat(d.stop()).isNull();
    assertThat(breaker.state()).isEqualTo(KafkaBreaker.State.OPEN);
    assertThat(metrics.snapshot().retries()).isZero();
  }

  @Test
  void countsTheAttemptWhenNothingWasAcknowledgedButKafkaAnswers() throws Exception {
    FinishPlanner.FinishPlan d = plan(List.of(event(1, 1)), failed(notInMetadata()));

    assertThat(only(d).kind()).isEqualTo(Kind.RETRY);
    assertThat(breaker.state()).isEqualTo(KafkaBreaker.State.CLOSED);
  }

  @Test
  void sendsTheEventBackAndStopsTheRelayWhenKafkaRefusesTheRelayItself() throws Exception {
    FinishPlanner.FinishPlan d =
        plan(
            onFirstAttempt(3),
            acknowledged(),
            failed(new ClusterAuthorizationException("denied")),
            failed(new ClusterAuthorizationException("denied again")));

    assertThat(d.acknowledged()).containsExactly(1L);
    assertThat(d.failures()).extracting(Failure::id).containsExactly(2L, 3L);
    assertThat(d.failures())
        .allSatisfy(
            f -> {
              assertThat(f.kind()).isEqualTo(Kind.RELEASE);
              assertThat(f.retryIn()).isZero();
            });
    assertThat(d.stop())
        .isNotNull()
        .hasMessageContaining("Kafka refused the relay (ClusterAuthorizationException: denied)")
        .hasMessageContaining("fix the Kafka credentials or ACLs");
    assertThat(metrics.snapshot().poison()).isZero();
  }

  @Test
  void decidesEachEventOfAMixedBatchOnItsOwn() throws Exception {
    FinishPlanner.FinishPlan d =
        plan(
            onFirstAttempt(4),
            failed(notInMetadata()),
            acknowledged(),
            failed(new RecordTooLargeException("too large")),
            failed(new NotLeaderOrFollowerException("not the leader")));

    assertThat(d.acknowledged()).containsExactly(2L);
    assertThat(d.failures())
        .extracting(Failure::id, Failure::kind)
        .containsExactlyInAnyOrder(
            tuple(1L, Kind.RETRY), tuple(3L, Kind.DEAD), tuple(4L, Kind.RELEASE));
    assertThat(d.stop()).isNull();
  }
}
