package io.outboxrelay.relay.source.cdc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.outboxrelay.testsupport.outbox.Ledger;
import io.outboxrelay.testsupport.outbox.OutboxDatabase;
import io.outboxrelay.testsupport.outbox.OutboxWriter;
import io.outboxrelay.testsupport.outbox.RelayProcess;
import io.outboxrelay.testsupport.outbox.RelaySettings;
import io.outboxrelay.testsupport.outbox.SteadyWriter;
import io.outboxrelay.testsupport.outbox.TestEvent;
import io.outboxrelay.testsupport.outbox.TestTopics;
import io.outboxrelay.testsupport.stack.ConsumedRecord;
import io.outboxrelay.testsupport.stack.LocalStack;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.io.TempDir;

/**
 * The first start of a CDC relay (no stored position), run from its distribution on the private
 * MariaDB and the broker: the events the application committed before the relay ever ran, and those
 * it commits while the relay starts, are each published once, in per-aggregate order ({@code
 * cdc.first.start=publish}, the default); with {@code skip} none of those already in the table is,
 * and one INFO line says how many were skipped.
 */
class CdcFirstStartIT {

  @TempDir Path dir;
  private OutboxDatabase db;
  private TestTopics topics;
  private SteadyWriter writer;
  private final List<RelayProcess> processes = new ArrayList<>();

  @BeforeEach
  void setUp(TestInfo info) {
    db = OutboxDatabase.on(LocalStack.shared().mariaDb());
    String method = info.getTestMethod().map(m -> m.getName()).orElse("t");
    topics = TestTopics.fresh(LocalStack.shared().kafka().bootstrapServers(), "first", method, 16);
  }

  @AfterEach
  void tearDown() {
    if (writer != null) {
      writer.close();
    }
    processes.forEach(RelayProcess::close);
    db.close();
  }

  private RelayProcess run(String label, RelaySettings settings) {
    RelayProcess p =
        RelayProcess.run(label, dir, settings.writeTo(dir.resolve(label + ".properties")));
    processes.add(p);
    return p;
  }

  private static List<TestEvent> existing(int n) {
    List<TestEvent> events = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      events.add(TestEvent.of("order", "before-" + (i % 7), i / 7 + 1));
    }
    return events;
  }

  @Test
  void publishesEveryEventWrittenBeforeAndDuringTheFirstStartOnceInPerAggregateOrder()
      throws Exception {
    Ledger ledger = topics.newLedger();
    OutboxWriter.write(db, ledger, existing(350));
    writer = SteadyWriter.start(db, ledger, "order", 200, 12, 2);
    await().atMost(Duration.ofSeconds(30)).until(() -> writer.commitMillis().size() > 100);

    RelayProcess relay = run("relay", RelaySettings.cdc(db, topics.bootstrap(), topics.name()));
    relay.awaitReady();
    long atReady = writer.commitMillis().size();
    await()
        .atMost(Duration.ofSeconds(60))
        .until(() -> writer.commitMillis().size() > atReady + 200);
    writer.stop(Duration.ofSeconds(10));

    Ledger.Result result = topics.check(ledger, Duration.ofSeconds(90));
    assertThat(result.lost()).as(result.summary()).isZero();
    assertThat(result.duplicates()).as(result.summary()).isZero();
    assertThat(result.outOfOrder()).as(result.summary()).isZero();
    assertThat(result.mismatches()).as(result.summary()).isEmpty();
    assertThat(relay.log())
        .containsPattern(
            "first start of relay.name '[^']+': published \\d+ rows of "
                + db.name()
                + ".outbox_events already in the table \\(cdc.first.start=publish\\)");
    assertThat(relay.stackTraceLines()).as(relay.log()).isEmpty();
  }

  @Test
  void publishesNoneOfTheRowsAlreadyInTheTableWithSkipAndSaysHowManyItSkipped() throws Exception {
    Ledger before = topics.newLedger();
    List<TestEvent> old = existing(40);
    OutboxWriter.write(db, before, old);

    RelayProcess relay =
        run(
            "relay",
            RelaySettings.cdc(db, topics.bootstrap(), topics.name())
                .with("cdc.first.start", "skip"));
    relay.awaitReady();
    Ledger after = topics.newLedger();
    List<TestEvent> later = List.of(TestEvent.of("order", "after-1", 1));
    OutboxWriter.write(db, after, later);

    List<ConsumedRecord> records = topics.readAll(after, Duration.ofSeconds(60));
    Set<String> oldIds = old.stream().map(TestEvent::eventId).collect(Collectors.toSet());
    assertThat(records)
        .extracting(r -> r.header("id"))
        .doesNotContainAnyElementsOf(oldIds)
        .containsExactly(later.get(0).eventId());
    assertThat(relay.log().lines().filter(l -> l.contains("first start of relay.name")).toList())
        .singleElement()
        .satisfies(
            l ->
                assertThat(l)
                    .contains(" INFO ")
                    .contains(
                        "skipped 40 rows of "
                            + db.name()
                            + ".outbox_events already in the table (cdc.first.start=skip)"));
  }
}
