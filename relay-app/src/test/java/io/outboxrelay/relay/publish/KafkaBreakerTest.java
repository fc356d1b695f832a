package io.outboxrelay.relay.publish;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class KafkaBreakerTest {

  /** A probe whose answer the test sets: null means Kafka answers. */
  private static final class FakeProbe implements KafkaBreaker.Probe {
    final AtomicReference<String> failure = new AtomicReference<>("no answer within 5000 ms");
    final AtomicInteger checks = new AtomicInteger();
    final AtomicInteger closes = new AtomicInteger();

    @Override
    public String check(Duration timeout) {
      checks.incrementAndGet();
      return failure.get();
    }

    @Override
    public void close() {
      closes.incrementAndGet();
    }
  }

  /** A wall clock the test moves. */
  private static final class TestClock extends Clock {
    private volatile Instant now = Instant.parse("2025-01-01T00:00:00Z");

    void advance(Duration d) {
      now = now.plus(d);
    }

    @Override
    public Instant instant() {
      return now;
    }

    @Override
    public java.time.ZoneId getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(java.time.ZoneId zone) {
      return this;
    }
  }

  private final FakeProbe probe = new FakeProbe();
  private final TestClock clock = new TestClock();
  private final KafkaBreaker breaker =
      new KafkaBreaker(probe, "test", "k:9092", "not claiming events", Duration.ofMillis(5), clock);

  @AfterEach
  void close() {
    breaker.close();
  }

  @Test
  void waitsForKafkasFirstAnswerBeforeItCloses() throws Exception {
    assertThat(breaker.isOpen()).isTrue();
    breaker.start();
    await().until(() -> probe.checks.get() >= 3);
    assertThat(breaker.state()).isEqualTo(KafkaBreaker.State.WAITING);
    assertThat(breaker.warnings()).isEqualTo(1);

    probe.failure.set(null);

    assertThat(breaker.awaitClosed(() -> true)).isTrue();
    assertThat(breaker.state()).isEqualTo(KafkaBreaker.State.CLOSED);
  }

  @Test
  void warnsOnceWhenItOpensAndThenAtMostEveryThirtySeconds() throws Exception {
    probe.failure.set(null);
    breaker.start();
    breaker.awaitClosed(() -> true);
    assertThat(breaker.warnings()).as("a healthy start warns nothing").isZero();
    probe.failure.set("TimeoutException: Timed out waiting for a node assignment");

    assertThat(breaker.open("TimeoutException: Topic t not present in metadata")).isTrue();
    assertThat(breaker.open("again")).as("already open").isFalse();
    int checks = probe.checks.get();
    await().until(() -> probe.checks.get() > checks + 20);
    assertThat(breaker.warnings()).isEqualTo(1);

    clock.advance(Duration.ofSeconds(29));
    int later = probe.checks.get();
    await().until(() -> probe.checks.get() > later + 20);
    assertThat(breaker.warnings()).isEqualTo(1);

    clock.advance(Duration.ofSeconds(1));
    await().until(() -> breaker.warnings() == 2);
    clock.advance(Duration.ofSeconds(10));
    int more = probe.checks.get();
    await().until(() -> probe.checks.get() > more + 20);
    assertThat(breaker.warnings()).isEqualTo(2);

    probe.failure.set(null);
    assertThat(breaker.awaitClosed(() -> true)).isTrue();
    assertThat(breaker.isOpen()).isFalse();
  }

  @Test
  void answersWithoutAskingKafkaWhileOpen() throws Exception {
    probe.failure.set(null);
    breaker.start();
    breaker.awaitClosed(() -> true);
    assertThat(breaker.answers(Duration.ofSeconds(1))).isTrue();

    probe.failure.set("no answer");
    clock.advance(Duration.ofSeconds(2)); // the last answer is no longer reused
    assertThat(breaker.answers(Duration.ofSeconds(1))).isFalse();
    assertThat(breaker.answers(Duration.ZERO)).as("no time left: no answer").isFalse();

    breaker.open("no answer");
    int checks = probe.checks.get();
    assertThat(breaker.answers(Duration.ofSeconds(1))).isFalse();
    assertThat(breaker.isOpen()).isTrue();
    assertThat(probe.checks.get()).isGreaterThanOrEqualTo(checks);
  }

  @Test
  void stopsWaitingWhenAskedOrClosed() throws Exception {
    breaker.start();
    assertThat(breaker.awaitClosed(() -> false)).isFalse();

    breaker.close();

    assertThat(breaker.awaitClosed(() -> true)).isFalse();
    assertThat(breaker.state()).isEqualTo(KafkaBreaker.State.SHUT);
    assertThat(probe.closes.get()).isEqualTo(1);
  }
}
