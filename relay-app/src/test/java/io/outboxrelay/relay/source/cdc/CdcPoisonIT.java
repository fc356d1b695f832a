package io.outboxrelay.relay.source.cdc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.outboxrelay.relay.Relay;
import io.outboxrelay.relay.RelayFailure;
import io.outboxrelay.relay.publish.RecordSizeLimit;
import io.outboxrelay.relay.testing.InProcessRelays;
import io.outboxrelay.router.EventRouter;
import io.outboxrelay.router.OutboxEvent;
import io.outboxrelay.router.TopicTemplate;
import io.outboxrelay.testsupport.outbox.Ledger;
import io.outboxrelay.testsupport.outbox.OutboxDatabase;
import io.outboxrelay.testsupport.outbox.RawOutboxInserts;
import io.outboxrelay.testsupport.outbox.RelaySettings;
import io.outboxrelay.testsupport.outbox.TestEvent;
import io.outboxrelay.testsupport.outbox.TestTopics;
import io.outboxrelay.testsupport.stack.ConsumedRecord;
import io.outboxrelay.testsupport.stack.LocalStack;
import io.outboxrelay.testsupport.stack.TopicReader;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.config.ConfigResource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

/**
 * Poison events in CDC mode with {@code cdc.poison.action=fail}, on the real MariaDB and Kafka
 * broker: aggregate {@code o-1} writes A, B (poison), C in one transaction behind events of other
 * aggregates, and {@code o-2} writes D after them. The relay must stop at B with nothing of o-1
 * after it in Kafka, so that once the cause is fixed the partition reads A, B, C — never C before
 * B, never C twice.
 */
class CdcPoisonIT {

  private OutboxDatabase db;
  private TestTopics topics;
  private String name;
  private final InProcessRelays relays = new InProcessRelays();

  @BeforeEach
  void setUp(TestInfo info) {
    db = OutboxDatabase.on(LocalStack.shared().mariaDb());
    String method = info.getTestMethod().map(m -> m.getName()).orElse("t");
    topics = TestTopics.fresh(bootstrap(), "poison", method, 16);
    name = topics.name();
  }

  @AfterEach
  void tearDown() {
    relays.close();
    db.close();
  }

  private static String bootstrap() {
    return LocalStack.shared().kafka().bootstrapServers();
  }

  private RelaySettings settings() {
    return RelaySettings.cdc(db, bootstrap(), name);
  }

  private String topic(String suffix) {
    return RelaySettings.topicPrefix(name) + suffix;
  }

  private Relay start(RelaySettings settings) throws Exception {
    return relays.start(settings);
  }

  /** Waits for the relay to stop on its own and returns why. */
  private static RelayFailure failureOf(Relay relay) {
    await().atMost(Duration.ofSeconds(60)).until(() -> relay.termination().isDone());
    Throwable error = relay.termination().handle((v, e) -> e).join();
    for (Throwable t = error; t != null; t = t.getCause()) {
      if (t instanceof RelayFailure rf) {
        return rf;
      }
    }
    throw new AssertionError("the relay did not fail with a RelayFailure", error);
  }

  private TopicReader reader() {
    return topics.reader();
  }

  /** Event ids of an aggregate in the order its partition holds them. */
  private static List<String> idsOf(List<ConsumedRecord> records, String aggregateId) {
    return records.stream()
        .filter(r -> aggregateId.equals(r.keyAsString()))
        .map(r -> r.header("id"))
        .toList();
  }

  private static TestEvent withPayload(TestEvent e, String payload) {
    return new TestEvent(
        e.eventId(), e.aggregateType(), e.aggregateId(), e.eventType(), e.sequence(), payload);
  }

  private static TestEvent withEventType(TestEvent e, String eventType) {
    return new TestEvent(
        e.eventId(), e.aggregateType(), e.aggregateId(), eventType, e.sequence(), e.payload());
  }

  /** Events of other aggregates ahead of A, so that A, B and C reach the relay in one batch. */
  private static List<TestEvent> others() {
    List<TestEvent> others = new ArrayList<>();
    for (int i = 1; i <= 30; i++) {
      others.add(TestEvent.of("order", "f-" + (i % 10), 1 + (i - 1) / 10));
    }
    return others;
  }

  /** {@link #others()} followed by the events. */
  private static List<TestEvent> othersAnd(TestEvent... events) {
    List<TestEvent> all = new ArrayList<>(others());
    all.addAll(List.of(events));
    return all;
  }

  /**
   * Starts a relay on the settings, writes the events in one transaction and waits for the relay to
   * stop.
   *
   * @return why it stopped
   */
  private RelayFailure failureWriting(RelaySettings settings, List<TestEvent> events)
      throws Exception {
    Relay relay = start(settings);
    writeInOneTransaction(events);
    return failureOf(relay);
  }

  private void writeInOneTransaction(List<TestEvent> events) throws Exception {
    try (Connection c = db.app()) {
      RawOutboxInserts.writeTransaction(c, events);
    }
  }

  /** After the fix: every expected event once, in aggregate order. */
  private void assertPublishedOnceInOrder(Ledger ledger) {
    Ledger.Result result =
        ledger.check(
            reader()
                .readUntilQuiet(
                    ledger::allArrived,
                    Duration.ofSeconds(90),
                    Duration.ofSeconds(2),
                    Duration.ofSeconds(60)));
    assertThat(result.lost()).as(result.summary()).isZero();
    assertThat(result.duplicates()).as(result.summary()).isZero();
    assertThat(result.outOfOrder()).as(result.summary()).isZero();
    assertThat(result.mismatches()).as(result.summary()).isEmpty();
    assertThat(result.unexpected()).as(result.summary()).isZero();
  }

  @Test
  void anEventTooLargeForTheProducerStopsTheRelayBeforeAnythingAfterItIsSent() throws Exception {
    TestEvent a = TestEvent.of("order", "o-1", 1);
    TestEvent b =
        withPayload(TestEvent.of("order", "o-1", 2), "{\"blob\":\"" + "x".repeat(30_000) + "\"}");
    TestEvent c = TestEvent.of("order", "o-1", 3);
    TestEvent d = TestEvent.of("order", "o-2", 1);
    List<TestEvent> all = othersAnd(a, b, c, d);
    // The producer's limit is exactly the size of the largest other event: the relay counts a
    // record as the producer does, or that event would be refused by one or the other.
    EventRouter router =
        EventRouter.withTopicTemplate(TopicTemplate.parse(topic("${aggregate_type}")));
    int limit = 0;
    for (TestEvent e : all) {
      if (e != b) {
        limit = Math.max(limit, RecordSizeLimit.serializedSize(router.route(outboxEvent(e))));
      }
    }
    RelayFailure failure =
        failureWriting(
            settings().with("kafka.producer.max.request.size", String.valueOf(limit)), all);
    List<ConsumedRecord> published = reader().readAll(Duration.ofSeconds(2));
    assertThat(idsOf(published, "o-1")).as("only A, nothing after B").containsExactly(a.eventId());
    assertThat(idsOf(published, "o-2")).as("with fail nothing after B is published").isEmpty();
    assertThat(failure)
        .hasMessageContaining("event_id=" + b.eventId())
        .hasMessageContaining("more than the producer's max.request.size of " + limit)
        .hasMessageContaining("Raise kafka.producer.max.request.size")
        .hasMessageNotContaining("router.topic.template");

    // The operator raised the limit (back to Kafka's default).
    assertRestartPublishesAll(all, a, b, c);
  }

  @Test
  void anEventTheBrokerRefusesStopsTheRelayBeforeALaterEventOfItsAggregateIsAcknowledged()
      throws Exception {
    // The topic takes smaller records than the producer: only the broker can refuse B. B is
    // random text, which lz4 cannot compress below the topic's limit.
    String orders = topic("order");
    try (Admin admin = admin()) {
      admin
          .createTopics(
              List.of(
                  new NewTopic(orders, 3, (short) 1)
                      .configs(Map.of("max.message.bytes", "300000"))))
          .all()
          .get(30, TimeUnit.SECONDS);
    }
    TestEvent a = TestEvent.of("order", "o-1", 1);
    TestEvent b = withPayload(TestEvent.of("order", "o-1", 2), randomJson(600_000));
    TestEvent c = TestEvent.of("order", "o-1", 3);
    List<TestEvent> all = othersAnd(a, b, c);
    RelayFailure failure = failureWriting(settings(), all);
    List<ConsumedRecord> published = reader().readAll(Duration.ofSeconds(2));
    assertThat(idsOf(published, "o-1")).as("C never follows B").containsExactly(a.eventId());
    assertThat(failure)
        .hasMessageContaining("event_id=" + b.eventId())
        .hasMessageContaining("RecordTooLargeException")
        .hasMessageContaining("topic's max.message.bytes");

    try (Admin admin = admin()) {
      admin
          .incrementalAlterConfigs(
              Map.of(
                  new ConfigResource(ConfigResource.Type.TOPIC, orders),
                  List.of(
                      new AlterConfigOp(
                          new ConfigEntry("max.message.bytes", "2000000"),
                          AlterConfigOp.OpType.SET))))
          .all()
          .get(30, TimeUnit.SECONDS);
    }
    assertRestartPublishesAll(all, a, b, c);
  }

  /**
   * A topic whose limit is below the producer's batch.size: Kafka's producer would split a refused
   * batch in a loop until its I/O thread overflows its stack. The relay sends that topic's records
   * one at a time and refuses the one over the limit before sending it: with fail, one ERROR line
   * naming the event, the topic's limit and the fix, exit 1, at the position before it; with skip,
   * skipped and counted, and every other event published once, in order.
   */
  @Test
  void anEventOverItsTopicsLimitStopsTheRelayWithOneLineAndIsSkippedOnRequest() throws Exception {
    String orders = topic("order");
    try (Admin admin = admin()) {
      admin
          .createTopics(
              List.of(
                  new NewTopic(orders, 3, (short) 1).configs(Map.of("max.message.bytes", "1500"))))
          .all()
          .get(30, TimeUnit.SECONDS);
    }
    TestEvent a = TestEvent.of("order", "o-1", 1);
    TestEvent b = withPayload(TestEvent.of("order", "o-1", 2), randomJson(3_000));
    TestEvent c = TestEvent.of("order", "o-1", 3);
    TestEvent d = TestEvent.of("order", "o-2", 1);
    List<TestEvent> all = othersAnd(a, b, c, d);
    java.nio.file.Path dir = java.nio.file.Files.createTempDirectory("poison-limit");
    io.outboxrelay.testsupport.outbox.RelayRun relay =
        io.outboxrelay.relay.testing.InProcessRun.run(
            "limit-fail", dir, settings().writeTo(dir.resolve("relay.properties")));
    writeInOneTransaction(all);
    assertThat(relay.waitFor(Duration.ofSeconds(90))).as(relay.log()).isEqualTo(1);
    List<String> errors = relay.log().lines().filter(l -> l.contains(" ERROR ")).toList();
    assertThat(errors)
        .as(relay.log())
        .singleElement()
        .asString()
        .contains("cannot publish event_id=" + b.eventId())
        .contains("more than the max.message.bytes of topic " + orders + " (1500)")
        .contains("Raise the topic's max.message.bytes")
        .contains("cdc.poison.action=skip")
        .contains("The position is kept just before this event");
    assertThat(relay.log())
        .doesNotContain("splitting and retrying")
        .doesNotContain("StackOverflow");
    assertThat(relay.stackTraceLines()).as(relay.log()).isEmpty();
    List<ConsumedRecord> published = reader().readAll(Duration.ofSeconds(2));
    assertThat(idsOf(published, "o-1")).as("only A, nothing after B").containsExactly(a.eventId());
    assertThat(idsOf(published, "o-2")).as("with fail nothing after B is published").isEmpty();

    Ledger ledger = new Ledger(RelaySettings.topicPrefix(name));
    all.stream().filter(e -> e != b).forEach(ledger::expect);
    Relay second = start(settings().with("cdc.poison.action", "skip"));
    assertPublishedOnceInOrder(ledger);
    assertThat(second.metrics().snapshot().poison()).isEqualTo(1);
  }

  @Test
  void anEventWithAnIllegalTopicStopsTheRelayWithTheTemplateHintAndIsSkippedOnRequest()
      throws Exception {
    // Topics by event type: B's type makes an illegal topic name. The other events' type is
    // their aggregate type, so they land where the ledger expects them.
    TestEvent a = withEventType(TestEvent.of("order", "o-1", 1), "order");
    TestEvent b = withEventType(TestEvent.of("order", "o-1", 2), "order paid");
    TestEvent c = withEventType(TestEvent.of("order", "o-1", 3), "order");
    TestEvent d = withEventType(TestEvent.of("order", "o-2", 1), "order");
    List<TestEvent> all = new ArrayList<>();
    for (TestEvent e : others()) {
      all.add(withEventType(e, "order"));
    }
    all.addAll(List.of(a, b, c, d));
    RelaySettings byEventType = settings().with("router.topic.template", topic("${event_type}"));
    RelayFailure failure = failureWriting(byEventType, all);
    List<ConsumedRecord> published = reader().readAll(Duration.ofSeconds(2));
    assertThat(idsOf(published, "o-1")).containsExactly(a.eventId());
    assertThat(idsOf(published, "o-2")).isEmpty();
    assertThat(failure)
        .hasMessageContaining("event_id=" + b.eventId())
        .hasMessageContaining("not a legal Kafka topic name")
        .hasMessageContaining("Change router.topic.template")
        .hasMessageNotContaining("max.request.size");

    Ledger ledger = new Ledger(RelaySettings.topicPrefix(name));
    all.stream().filter(e -> e != b).forEach(ledger::expect);
    Relay second = start(byEventType.with("cdc.poison.action", "skip"));
    assertPublishedOnceInOrder(ledger);
    assertThat(second.metrics().snapshot().poison()).isEqualTo(1);
  }

  @Test
  void anEventWithANullPayloadIsPoisonNotATombstone() throws Exception {
    db.admin("ALTER TABLE outbox_events MODIFY payload LONGTEXT NULL");
    TestEvent a = TestEvent.of("order", "o-1", 1);
    TestEvent b = withPayload(TestEvent.of("order", "o-1", 2), null);
    TestEvent c = TestEvent.of("order", "o-1", 3);
    List<TestEvent> all = othersAnd(a, b, c);
    RelayFailure failure = failureWriting(settings(), all);
    assertThat(idsOf(reader().readAll(Duration.ofSeconds(2)), "o-1")).containsExactly(a.eventId());
    assertThat(failure)
        .hasMessageContaining("payload is NULL: event_id=" + b.eventId())
        .hasMessageContaining("cdc.poison.action=skip")
        .hasMessageNotContaining("max.request.size");

    Ledger ledger = new Ledger(RelaySettings.topicPrefix(name));
    all.stream().filter(e -> e != b).forEach(ledger::expect);
    start(settings().with("cdc.poison.action", "skip"));
    assertPublishedOnceInOrder(ledger);
    assertThat(reader().readAll(Duration.ofSeconds(1)))
        .as("no tombstone")
        .allMatch(r -> r.value() != null);
  }

  /**
   * Starts a relay with the default settings again: it publishes every event once, in order, with
   * A, B and C of aggregate o-1 in that order.
   */
  private void assertRestartPublishesAll(List<TestEvent> all, TestEvent a, TestEvent b, TestEvent c)
      throws Exception {
    Ledger ledger = new Ledger(RelaySettings.topicPrefix(name));
    ledger.expect(all);
    start(settings());
    assertPublishedOnceInOrder(ledger);
    List<ConsumedRecord> records = reader().readAll(Duration.ofSeconds(1));
    assertThat(idsOf(records, "o-1")).containsExactly(a.eventId(), b.eventId(), c.eventId());
  }

  private static OutboxEvent outboxEvent(TestEvent e) {
    return new OutboxEvent(
        0L,
        e.eventId(),
        e.aggregateType(),
        e.aggregateId(),
        e.eventType(),
        e.payload().getBytes(StandardCharsets.UTF_8),
        null);
  }

  private static String randomJson(int chars) {
    Random random = new Random(42);
    String alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    StringBuilder text = new StringBuilder(chars + 16).append("{\"blob\":\"");
    for (int i = 0; i < chars; i++) {
      text.append(alphabet.charAt(random.nextInt(alphabet.length())));
    }
    return text.append("\"}").toString();
  }

  private static Admin admin() {
    return Admin.create(
        Map.of(
            AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
            bootstrap(),
            AdminClientConfig.CLIENT_ID_CONFIG,
            "cdc-poison-it"));
  }
}
