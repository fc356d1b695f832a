package io.outboxrelay.relay.publish;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.outboxrelay.relay.Relay;
import io.outboxrelay.relay.RelayFailure;
import io.outboxrelay.relay.testing.InProcessRelays;
import io.outboxrelay.testsupport.outbox.Ledger;
import io.outboxrelay.testsupport.outbox.OutboxDatabase;
import io.outboxrelay.testsupport.outbox.RawOutboxInserts;
import io.outboxrelay.testsupport.outbox.RelaySettings;
import io.outboxrelay.testsupport.outbox.TestEvent;
import io.outboxrelay.testsupport.outbox.TestTopics;
import io.outboxrelay.testsupport.stack.ConsumedRecord;
import io.outboxrelay.testsupport.stack.LocalStack;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

/**
 * A topic whose {@code max.message.bytes} (1500) is below the size of an event uncompressed, with
 * {@code kafka.producer.compression.type=lz4}, on the real MariaDB and Kafka broker: the broker
 * compares the compressed batch with the limit, so a 3 KB event that lz4 makes small is published,
 * in both modes, while a 3 KB event of random text stays poison (CDC with {@code fail}: the relay
 * stops before it with nothing of its aggregate after it; polling: DEAD with the reason).
 */
class CompressedTopicLimitIT {

  private OutboxDatabase db;
  private TestTopics topics;
  private String name;
  private final InProcessRelays relays = new InProcessRelays();

  @BeforeEach
  void setUp(TestInfo info) {
    String method = info.getTestMethod().map(m -> m.getName()).orElse("t");
    topics = TestTopics.fresh(bootstrap(), "lz4", method, 16);
    name = topics.name();
  }

  @AfterEach
  void tearDown() {
    relays.close();
    if (db != null) {
      db.close();
    }
  }

  private static String bootstrap() {
    return LocalStack.shared().kafka().bootstrapServers();
  }

  /** Creates the events' topic with a limit below an uncompressed 3 KB event. */
  private String createSmallTopic() throws Exception {
    String orders = RelaySettings.topicPrefix(name) + "order";
    try (Admin admin =
        Admin.create(
            Map.of(
                AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
                bootstrap(),
                AdminClientConfig.CLIENT_ID_CONFIG,
                "lz4-it"))) {
      admin
          .createTopics(
              List.of(
                  new NewTopic(orders, 3, (short) 1).configs(Map.of("max.message.bytes", "1500"))))
          .all()
          .get(30, TimeUnit.SECONDS);
    }
    return orders;
  }

  private static TestEvent withPayload(TestEvent e, String payload) {
    return new TestEvent(
        e.eventId(), e.aggregateType(), e.aggregateId(), e.eventType(), e.sequence(), payload);
  }

  /** 3 KB that lz4 compresses to a few dozen bytes. */
  private static String compressible() {
    return "{\"blob\":\"" + "x".repeat(3_000) + "\"}";
  }

  /** 3 KB of random text: lz4 leaves it well over 1500 bytes. */
  private static String incompressible() {
    Random random = new Random(42);
    String alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    StringBuilder text = new StringBuilder("{\"blob\":\"");
    for (int i = 0; i < 3_000; i++) {
      text.append(alphabet.charAt(random.nextInt(alphabet.length())));
    }
    return text.append("\"}").toString();
  }

  private static List<String> idsOf(List<ConsumedRecord> records, String aggregateId) {
    return records.stream()
        .filter(r -> aggregateId.equals(r.keyAsString()))
        .map(r -> r.header("id"))
        .toList();
  }

  @Test
  void cdcPublishesACompressibleEventOverTheLimitAndStopsBeforeAnIncompressibleOne()
      throws Exception {
    db = OutboxDatabase.on(LocalStack.shared().mariaDb());
    String orders = createSmallTopic();
    TestEvent a = TestEvent.of("order", "o-1", 1);
    TestEvent b = withPayload(TestEvent.of("order", "o-1", 2), compressible());
    TestEvent c = TestEvent.of("order", "o-1", 3);
    TestEvent p = withPayload(TestEvent.of("order", "o-1", 4), incompressible());
    TestEvent q = TestEvent.of("order", "o-1", 5);
    TestEvent d = TestEvent.of("order", "o-2", 1);
    List<TestEvent> all = new ArrayList<>();
    for (int i = 1; i <= 10; i++) {
      all.add(TestEvent.of("order", "f-" + i, 1));
    }
    all.addAll(List.of(a, b, c, p, q, d));

    Relay relay =
        relays.start(
            RelaySettings.cdc(db, bootstrap(), name)
                .with("kafka.producer.compression.type", "lz4"));
    try (Connection conn = db.app()) {
      RawOutboxInserts.writeTransaction(conn, all);
    }
    await().atMost(Duration.ofSeconds(90)).until(() -> relay.termination().isDone());
    Throwable failure = relay.termination().handle((v, e) -> e).join();
    assertThat(failure).isNotNull();
    RelayFailure rf = null;
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (t instanceof RelayFailure f) {
        rf = f;
      }
    }
    assertThat(rf)
        .as("stops at the incompressible event, not the compressible one")
        .isNotNull()
        .hasMessageContaining("event_id=" + p.eventId())
        .hasMessageContaining("compressed with lz4")
        .hasMessageContaining("more than the max.message.bytes of topic " + orders + " (1500)");

    List<ConsumedRecord> published = topics.reader().readAll(Duration.ofSeconds(2));
    assertThat(idsOf(published, "o-1"))
        .as("A, the compressible B and C, in order; nothing after the poison event")
        .containsExactly(a.eventId(), b.eventId(), c.eventId());
    assertThat(idsOf(published, "o-2")).as("with fail nothing after it is published").isEmpty();
    ConsumedRecord bRecord =
        published.stream().filter(r -> b.eventId().equals(r.header("id"))).findFirst().get();
    assertThat(bRecord.valueAsString()).isEqualTo(b.payload());
  }

  @Test
  void pollingPublishesACompressibleEventOverTheLimitAndBuriesAnIncompressibleOne()
      throws Exception {
    db = OutboxDatabase.forPolling();
    String orders = createSmallTopic();
    Ledger ledger = new Ledger(RelaySettings.topicPrefix(name));
    TestEvent a = TestEvent.of("order", "o-1", 1);
    TestEvent b = withPayload(TestEvent.of("order", "o-1", 2), compressible());
    TestEvent c = TestEvent.of("order", "o-1", 3);
    TestEvent p = withPayload(TestEvent.of("order", "p-1", 1), incompressible());
    TestEvent q = TestEvent.of("order", "p-1", 2);
    ledger.expect(List.of(a, b, c));

    relays.start(
        RelaySettings.polling(db, bootstrap(), name)
            .with("kafka.producer.compression.type", "lz4"));
    try (Connection conn = db.app()) {
      RawOutboxInserts.writeTransaction(conn, List.of(a, b, p));
      RawOutboxInserts.writeTransaction(conn, List.of(c, q));
    }

    Ledger.Result result = ledger.check(topics.readAll(ledger, Duration.ofSeconds(120)));
    assertThat(result.lost()).as(result.summary()).isZero();
    assertThat(result.duplicates()).as(result.summary()).isZero();
    assertThat(result.outOfOrder()).as(result.summary()).isZero();
    assertThat(result.mismatches()).as(result.summary()).isEmpty();
    assertThat(result.unexpected()).as("nothing of aggregate p-1 reached Kafka").isZero();
    await().atMost(Duration.ofSeconds(30)).until(() -> "DEAD".equals(column("status", p)));
    assertThat(column("status", b)).isEqualTo("PUBLISHED");
    assertThat(column("last_error", p))
        .contains("RecordTooLargeException")
        .contains("compressed with lz4")
        .contains("more than the max.message.bytes of topic " + orders + " (1500)");
    assertThat(column("status", q)).as("held back behind its DEAD event").isEqualTo("PENDING");
  }

  private String column(String column, TestEvent e) {
    Object v =
        db.adminQuery(
            "SELECT " + column + " FROM outbox_events WHERE event_id = '" + e.eventId() + "'");
    return v == null ? null : v.toString();
  }
}
