package io.outboxrelay.relay.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * The {@code promtool check metrics} assertion the endpoint tests rely on can fail: it rejects a
 * counter named against Prometheus conventions, and passes what the relay's registry renders.
 */
class PromtoolCheckTest {

  @Test
  void rejectsACounterWithoutTheTotalSuffix() {
    assumeTrue(Promtool.find() != null, "SKIPPED: promtool is not on PATH");
    String bad = "# HELP events Events\n# TYPE events counter\nevents 3\n";
    assertThatThrownBy(() -> Promtool.assertCleanMetrics(bad, LoggerFactory.getLogger(getClass())))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("_total");
  }

  @Test
  void passesTheRelaysOwnRegistry() throws Exception {
    assumeTrue(Promtool.find() != null, "SKIPPED: promtool is not on PATH");
    io.outboxrelay.relay.metrics.RelayMetrics metrics =
        new io.outboxrelay.relay.metrics.RelayMetrics();
    metrics.published(3);
    metrics.retry(2);
    metrics.skipped("OrderPaid");
    metrics.observeCreatedAt(java.time.Instant.now().minusMillis(40));
    metrics.sourceGauges().backlog(5);
    metrics.sourceGauges().oldestUnpublishedAge(1.5);
    metrics.sourceGauges().dead(java.util.Map.of("OrderCreated", 2L));
    String text = metrics.registry().scrape();
    Promtool.assertCleanMetrics(text, LoggerFactory.getLogger(getClass()));
    assertThat(text).containsPattern("(?m)^outbox_relay_events_published_total 3(\\.0)?$");
  }
}
