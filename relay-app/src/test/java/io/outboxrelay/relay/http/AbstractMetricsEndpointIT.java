package io.outboxrelay.relay.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.outboxrelay.relay.Relay;
import io.outboxrelay.relay.testing.Configs;
import io.outboxrelay.testsupport.outbox.Ledger;
import io.outboxrelay.testsupport.outbox.RawOutboxInserts;
import io.outboxrelay.testsupport.outbox.RelaySettings;
import io.outboxrelay.testsupport.outbox.SourceDatabase;
import io.outboxrelay.testsupport.outbox.TestEvent;
import io.outboxrelay.testsupport.stack.FreePorts;
import io.outboxrelay.testsupport.stack.KafkaBroker;
import io.outboxrelay.testsupport.stack.TopicReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The HTTP endpoint against known work, on a real database and a private Kafka broker: after N
 * events the published counter says N and the DEAD gauge counts the one poison event by its type;
 * {@code promtool check metrics} finds nothing to say about the output; {@code /health/ready} says
 * 503 "Kafka unreachable" while the broker is stopped and 200 again after it restarts, and {@code
 * /health/live} stays 200. One subclass per database and mode.
 */
abstract class AbstractMetricsEndpointIT {

  private static final Logger LOG = LoggerFactory.getLogger(AbstractMetricsEndpointIT.class);
  private static final AtomicInteger TESTS = new AtomicInteger();

  /** The events' type; the poison one's type makes an illegal topic name. */
  private static final String TYPE = "order";

  private static final String POISON_TYPE = "order paid";

  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
  private SourceDatabase db;
  private KafkaBroker broker;
  private Relay relay;
  private String name;
  private int port;

  /** A fresh outbox database for the relay's mode. */
  protected abstract SourceDatabase newDatabase();

  /** The relay's settings for this mode. */
  protected abstract RelaySettings settings(SourceDatabase db, String bootstrap, String name);

  /** The outcome label of the failed counter: dead (polling) or skipped (CDC). */
  protected abstract String givenUpOutcome();

  /** The relay's role on the role gauge: leader for a CDC relay (it holds its table's lease). */
  protected String expectedRole() {
    return "active";
  }

  /** The ledger of the test's events. */
  protected Ledger ledger(String topicPrefix) {
    return new Ledger(topicPrefix);
  }

  @BeforeEach
  void setUp() {
    name =
        "metrics" + TESTS.incrementAndGet() + "-" + Long.toHexString(System.nanoTime() & 0xfffff);
    db = newDatabase();
    broker = KafkaBroker.builder().start();
    port = FreePorts.findFreePort();
  }

  @AfterEach
  void tearDown() {
    if (relay != null) {
      relay.close();
    }
    if (broker != null) {
      broker.close();
    }
    if (db != null) {
      db.close();
    }
  }

  @Test
  void countsKnownWorkAndTurnsNotReadyWhileKafkaIsDown() throws Exception {
    RelaySettings settings =
        settings(db, broker.bootstrapServers(), name)
            .with("http.port", String.valueOf(port))
            .with("router.topic.template", RelaySettings.topicPrefix(name) + "${event_type}");
    relay = Relay.create(settings.parsedBy(Configs::parse));
    CompletableFuture<Void> started =
        CompletableFuture.runAsync(
            () -> {
              try {
                relay.start();
              } catch (Exception e) {
                throw new IllegalStateException(e);
              }
            });
    // The endpoint serves before the relay is ready, and says why it is not.
    await().atMost(Duration.ofSeconds(30)).until(() -> get("/health/ready") != null);
    HttpResponse<String> early = get("/health/ready");
    if (!started.isDone()) {
      assertThat(early.statusCode()).isIn(200, 503);
      if (early.statusCode() == 503) {
        assertThat(early.body()).contains("\"reason\":\"starting\"");
      }
    }
    started.get();
    HttpResponse<String> readyAtStart = get("/health/ready");
    assertThat(readyAtStart.statusCode()).as(readyAtStart.body()).isEqualTo(200);
    // A healthy relay says 0 DEAD events, rather than nothing.
    assertThat(value(metrics(), "outbox_relay_dead_events", "event_type=\"\"")).isZero();

    Ledger ledger = ledger(RelaySettings.topicPrefix(name));
    List<TestEvent> events = new ArrayList<>();
    for (int i = 1; i <= 40; i++) {
      TestEvent e = typed(TestEvent.of(TYPE, "a-" + (i % 7), 1 + (i - 1) / 7), TYPE);
      events.add(e);
    }
    TestEvent poison = typed(TestEvent.of(TYPE, "p-1", 1), POISON_TYPE);
    try (Connection c = db.app()) {
      for (int i = 0; i < events.size(); i += 10) {
        RawOutboxInserts.writeTransaction(c, events.subList(i, i + 10));
      }
      RawOutboxInserts.writeTransaction(c, List.of(poison));
    }
    ledger.expect(events);
    assertAllPublishedOnceInOrder(ledger);

    String outcome = "outcome=\"" + givenUpOutcome() + "\"";
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () -> {
              String text = metrics();
              assertThat(value(text, "outbox_relay_events_published_total", "")).isEqualTo(40);
              assertThat(value(text, "outbox_relay_publish_delay_seconds_count", "")).isEqualTo(40);
              assertThat(value(text, "outbox_relay_events_failed_total", outcome)).isEqualTo(1);
              assertThat(value(text, "outbox_relay_dead_events", "event_type=\"order paid\""))
                  .isEqualTo(1);
              assertThat(value(text, "outbox_relay_events_resent_total", "")).isZero();
              assertThat(value(text, "outbox_relay_kafka_reachable", "")).isEqualTo(1);
              assertThat(value(text, "outbox_relay_database_reachable", "")).isEqualTo(1);
              assertThat(value(text, "outbox_relay_ready", "")).isEqualTo(1);
              assertThat(value(text, "outbox_relay_role", "role=\"" + expectedRole() + "\""))
                  .isEqualTo(1);
              assertThat(value(text, "outbox_relay_role", "role=\"standby\"")).isZero();
              assertThat(value(text, "outbox_relay_last_commit_timestamp_seconds", ""))
                  .isGreaterThan(System.currentTimeMillis() / 1e3 - 600);
              assertThat(value(text, "outbox_relay_oldest_unpublished_age_seconds", ""))
                  .isGreaterThanOrEqualTo(0);
              assertModeGauges(text);
            });
    assertPromtoolFindsNothing(metrics());
    assertThat(get("/health/live").statusCode()).isEqualTo(200);
    assertThat(post("/metrics")).isEqualTo(405);

    broker.stop();
    await()
        .atMost(Duration.ofSeconds(60))
        .untilAsserted(
            () -> {
              HttpResponse<String> ready = get("/health/ready");
              assertThat(ready.statusCode()).isEqualTo(503);
              assertThat(ready.body()).contains("\"reason\":\"Kafka unreachable\"");
            });
    assertThat(value(metrics(), "outbox_relay_kafka_reachable", "")).isZero();
    assertThat(value(metrics(), "outbox_relay_ready", "")).isZero();
    assertThat(get("/health/live").statusCode()).isEqualTo(200);
    TestEvent during = typed(TestEvent.of(TYPE, "a-2", 100), TYPE);
    try (Connection c = db.app()) {
      RawOutboxInserts.writeTransaction(c, List.of(during));
    }
    ledger.expect(during);
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(() -> assertBacklogWhileKafkaIsDown(metrics()));

    broker.start();
    await()
        .atMost(Duration.ofSeconds(90))
        .untilAsserted(() -> assertThat(get("/health/ready").statusCode()).isEqualTo(200));
    TestEvent after = typed(TestEvent.of(TYPE, "a-1", 100), TYPE);
    // "during" was written while Kafka was down; "after" comes once it is back.
    try (Connection c = db.app()) {
      RawOutboxInserts.writeTransaction(c, List.of(after));
    }
    ledger.expect(after);
    assertAllPublishedOnceInOrder(ledger);
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () ->
                assertThat(value(metrics(), "outbox_relay_events_published_total", ""))
                    .isEqualTo(42));
  }

  /** The gauges only one mode has, once everything is published. */
  protected abstract void assertModeGauges(String metrics);

  /** The backlog gauges while Kafka is down and one event waits. */
  protected abstract void assertBacklogWhileKafkaIsDown(String metrics);

  private void assertAllPublishedOnceInOrder(Ledger ledger) {
    TopicReader reader =
        TopicReader.forPrefix(broker.bootstrapServers(), RelaySettings.topicPrefix(name));
    Ledger.Result result =
        ledger.check(
            reader.readUntilQuiet(
                ledger::allArrived,
                Duration.ofSeconds(120),
                Duration.ofSeconds(1),
                Duration.ofSeconds(60)));
    assertThat(result.lost()).as(result.summary()).isZero();
    assertThat(result.duplicates()).as(result.summary()).isZero();
    assertThat(result.outOfOrder()).as(result.summary()).isZero();
  }

  private static TestEvent typed(TestEvent e, String eventType) {
    return new TestEvent(
        e.eventId(), e.aggregateType(), e.aggregateId(), eventType, e.sequence(), e.payload());
  }

  private String metrics() throws Exception {
    HttpResponse<String> r = get("/metrics");
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.headers().firstValue("Content-Type").orElse("")).startsWith("text/plain");
    return r.body();
  }

  /** The endpoint's answer, or null while it does not listen. */
  private HttpResponse<String> get(String path) throws Exception {
    try {
      return http.send(
          HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
              .timeout(Duration.ofSeconds(5))
              .build(),
          HttpResponse.BodyHandlers.ofString());
    } catch (java.net.ConnectException e) {
      return null;
    }
  }

  private int post(String path) throws Exception {
    return http.send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .POST(HttpRequest.BodyPublishers.noBody())
                .build(),
            HttpResponse.BodyHandlers.discarding())
        .statusCode();
  }

  private static void assertPromtoolFindsNothing(String text) throws Exception {
    Promtool.assertCleanMetrics(text, LOG);
  }

  /**
   * The value of one sample of the Prometheus text: the line of {@code name} whose labels contain
   * {@code label} (any when empty).
   */
  static double value(String text, String name, String label) {
    for (String line : text.split("\n")) {
      if (line.startsWith("#") || line.isBlank()) {
        continue;
      }
      int space = line.lastIndexOf(' ');
      String series = line.substring(0, space);
      String metric = series.contains("{") ? series.substring(0, series.indexOf('{')) : series;
      if (metric.equals(name) && (label.isEmpty() || series.contains(label))) {
        return Double.parseDouble(line.substring(space + 1));
      }
    }
    throw new AssertionError("no sample " + name + " {" + label + "} in:\n" + text);
  }
}
