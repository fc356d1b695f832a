package io.outboxrelay.relay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.outboxrelay.testsupport.outbox.Ledger;
import io.outboxrelay.testsupport.outbox.OutboxDatabase;
import io.outboxrelay.testsupport.outbox.RawOutboxInserts;
import io.outboxrelay.testsupport.outbox.RelayProcess;
import io.outboxrelay.testsupport.outbox.RelaySettings;
import io.outboxrelay.testsupport.outbox.TestEvent;
import io.outboxrelay.testsupport.stack.FreePorts;
import io.outboxrelay.testsupport.stack.LocalStack;
import io.outboxrelay.testsupport.stack.TopicReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The relay, as a process, started with a host name that does not resolve yet, as a compose service
 * or a Kubernetes Service without ready pods: it waits ({@code /health/ready} 503 naming the host,
 * a WARN), starts and publishes once the name resolves, and exits with code 2 naming the host when
 * it does not resolve within {@code relay.resolve.timeout}. The name is real name resolution: the
 * test writes it into {@code /etc/hosts} (and removes it afterwards), a few seconds after the relay
 * started.
 */
class HostResolutionIT {

  private static final Logger LOG = LoggerFactory.getLogger(HostResolutionIT.class);
  private static final Path HOSTS = Path.of("/etc/hosts");
  private static final AtomicInteger TESTS = new AtomicInteger();

  @TempDir Path dir;
  private final String host =
      "outbox-relay-test-" + Long.toHexString(ThreadLocalRandom.current().nextLong()) + ".test";
  private final String name =
      "resolve" + TESTS.incrementAndGet() + "-" + Long.toHexString(System.nanoTime() & 0xfffff);
  private OutboxDatabase db;
  private RelayProcess relay;

  @AfterEach
  void tearDown() throws Exception {
    if (relay != null) {
      relay.close();
    }
    if (db != null) {
      db.close();
    }
    unpublishHost();
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"polling source.host", "cdc source.host", "polling kafka"})
  void waitsForAHostThatResolvesLaterThenStartsAndPublishes(String variant) throws Exception {
    boolean cdc = variant.startsWith("cdc");
    boolean kafkaHost = variant.endsWith("kafka");
    db = cdc ? OutboxDatabase.on(LocalStack.shared().mariaDb()) : OutboxDatabase.forPolling();
    String kafka = LocalStack.shared().kafka().bootstrapServers();
    String bootstrap = kafkaHost ? host + ":" + kafka.substring(kafka.lastIndexOf(':') + 1) : kafka;
    int http = FreePorts.findFreePort();
    RelaySettings settings =
        (cdc ? RelaySettings.cdc(db, bootstrap, name) : RelaySettings.polling(db, bootstrap, name))
            .with("http.port", String.valueOf(http));
    if (!kafkaHost) {
      settings = settings.with("source.host", host);
    }
    Ledger ledger = new Ledger(RelaySettings.topicPrefix(name));
    if (!cdc) {
      write(ledger, TestEvent.of("order", "o-1", 1)); // waiting in the table
    }
    relay = start(settings);

    String expected =
        kafkaHost
            ? "starting: Kafka unreachable: kafka.bootstrap.servers do not resolve to an address"
                + " yet ("
                + bootstrap
                + " (unknown host))"
            : "starting: database unreachable: source.host '"
                + host
                + "' does not resolve to an address yet";
    await()
        .atMost(Duration.ofSeconds(60))
        .ignoreExceptions() // refused until the endpoint listens
        .untilAsserted(() -> assertThat(ready(http)).isEqualTo("503 " + readyBody(expected)));
    relay
        .process()
        .awaitLogLine(
            ".* WARN .*unreachable since .*" + Pattern.quote(host) + ".*[(]waiting up to 300 s.*",
            Duration.ofSeconds(10));
    // A few seconds more, past the JDK's 10 s cache of a failed lookup if it were on.
    Thread.sleep(Duration.ofSeconds(11).toMillis());
    assertThat(relay.process().isAlive()).as(relay.log()).isTrue();
    assertThat(relay.log()).doesNotContain("ready:");

    publishHost();
    long resolvable = System.nanoTime();
    relay.awaitReady();
    write(ledger, TestEvent.of("order", "o-1", cdc ? 1 : 2));
    TopicReader reader = TopicReader.forPrefix(kafka, RelaySettings.topicPrefix(name));
    reader.readUntil(ledger::allArrived, Duration.ofSeconds(60));
    LOG.info(
        "{}: first event {} ms after the name resolved",
        variant,
        Duration.ofNanos(System.nanoTime() - resolvable).toMillis());
    Ledger.Result result =
        ledger.check(reader.readAll(Duration.ofSeconds(2), Duration.ofSeconds(30)));
    assertThat(result.lost()).as(result.summary()).isZero();
    assertThat(result.duplicates()).as(result.summary()).isZero();
    assertThat(result.outOfOrder()).as(result.summary()).isZero();
    assertThat(ready(http)).isEqualTo("200 {\"status\":\"ready\"}");
    assertThat(relay.log()).contains("reachable again after an outage of").doesNotContain("\tat ");
  }

  @Test
  void exitsWithCode2NamingTheHostWhenItDoesNotResolveWithinTheTimeout() throws Exception {
    db = OutboxDatabase.forPolling();
    relay =
        start(
            RelaySettings.polling(db, LocalStack.shared().kafka().bootstrapServers(), name)
                .with("source.host", host)
                .with("relay.resolve.timeout", "3s"));

    long started = System.nanoTime();
    assertThat(relay.waitFor(Duration.ofSeconds(60))).as(relay.log()).isEqualTo(2);

    assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(30));
    assertThat(relay.log())
        .contains("source.host '" + host + "' does not resolve to an address yet")
        .contains(
            "startup check failed: source.host '"
                + host
                + "' does not resolve to an address (waited 3 s, relay.resolve.timeout): check"
                + " source.host (and the DNS of this host)")
        .doesNotContain("ready:")
        .doesNotContain("\tat ");
  }

  private RelayProcess start(RelaySettings settings) {
    Path config = settings.writeTo(dir.resolve(name + ".properties"));
    return RelayProcess.start(name, dir, "run", "--config", config.toString());
  }

  private void write(Ledger ledger, TestEvent... events) throws Exception {
    try (Connection c = db.app()) {
      for (TestEvent e : events) {
        RawOutboxInserts.writeTransaction(c, List.of(e));
        ledger.expect(e);
      }
    }
  }

  private static String readyBody(String reason) {
    return "{\"status\":\"not ready\",\"reason\":\"" + reason + "\"}";
  }

  /** {@code /health/ready}'s status and body. */
  private static String ready(int port) throws Exception {
    HttpResponse<String> r =
        HttpClient.newBuilder()
            .connectTimeout(Duration.ofSeconds(2))
            .build()
            .send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/health/ready"))
                    .timeout(Duration.ofSeconds(2))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
    return r.statusCode() + " " + r.body().strip();
  }

  /** Makes the name resolve to the loopback address, where the database and Kafka listen. */
  private void publishHost() throws Exception {
    Files.writeString(
        HOSTS,
        "127.0.0.1 " + host + "\n",
        StandardCharsets.US_ASCII,
        java.nio.file.StandardOpenOption.APPEND);
  }

  /** Removes the name's line, leaving every other line as it was. */
  private void unpublishHost() throws Exception {
    List<String> lines = Files.readAllLines(HOSTS, StandardCharsets.US_ASCII);
    List<String> kept =
        lines.stream().filter(l -> !l.endsWith(" " + host)).collect(Collectors.toList());
    if (kept.size() != lines.size()) {
      Files.writeString(HOSTS, String.join("\n", kept) + "\n", StandardCharsets.US_ASCII);
    }
  }
}
