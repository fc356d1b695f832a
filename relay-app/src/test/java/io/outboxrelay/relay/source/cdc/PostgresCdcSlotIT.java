package io.outboxrelay.relay.source.cdc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.outboxrelay.relay.testing.InProcessRelays;
import io.outboxrelay.testsupport.outbox.Ledger;
import io.outboxrelay.testsupport.outbox.OutboxDatabase;
import io.outboxrelay.testsupport.outbox.RawOutboxInserts;
import io.outboxrelay.testsupport.outbox.RelaySettings;
import io.outboxrelay.testsupport.outbox.TestEvent;
import io.outboxrelay.testsupport.outbox.TestTopics;
import io.outboxrelay.testsupport.stack.FreePorts;
import io.outboxrelay.testsupport.stack.LocalStack;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The relay's replication slot while the outbox is quiet and other tables fill the WAL: heartbeats
 * (a logical decoding message each) move it, and {@code /metrics} shows the WAL it holds and its
 * {@code wal_status}.
 */
class PostgresCdcSlotIT {

  private static final Pattern SLOT_BEHIND =
      Pattern.compile("(?m)^outbox_relay_slot_behind_bytes\\S* ([0-9.eE+]+)$");

  private OutboxDatabase db;
  private TestTopics topics;
  private final InProcessRelays relays = new InProcessRelays();
  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

  @BeforeEach
  void setUp() {
    db = PostgresCdcDatabases.selfServing(PostgresCdcDatabases.server());
    topics = TestTopics.fresh(LocalStack.shared().kafka().bootstrapServers(), "pgslot");
  }

  @AfterEach
  void tearDown() {
    relays.close();
    db.close();
  }

  @Test
  void heartbeatsMoveAQuietSlotPastWhatOtherTablesWroteAndMetricsShowItsLagAndWalStatus()
      throws Exception {
    int port = FreePorts.findFreePort();
    RelaySettings settings =
        RelaySettings.cdc(db, topics.bootstrap(), topics.name())
            .without("cdc.server.id")
            .with("cdc.heartbeat.interval", "500ms")
            .with("http.port", String.valueOf(port));
    relays.start(settings);
    Ledger ledger = topics.newLedger().semanticPayloads();
    RawOutboxInserts.write(db, ledger, List.of(TestEvent.of("order", "o-1", 1)));
    topics.readAll(ledger, Duration.ofSeconds(60));

    // About 8 MB of WAL in a table outside the publication: nothing of it reaches the relay.
    db.admin(
        "CREATE TABLE busy (id bigint PRIMARY KEY, filler text)",
        "INSERT INTO busy SELECT g, repeat('x', 200) FROM generate_series(1, 30000) g");
    String afterBusy = String.valueOf(db.adminQuery("SELECT pg_current_wal_lsn()::text"));
    String slot = PostgresReplication.slotName(topics.name());
    long held =
        ((Number)
                db.adminQuery(
                    "SELECT ('"
                        + afterBusy
                        + "'::pg_lsn - confirmed_flush_lsn)::bigint FROM pg_replication_slots"
                        + " WHERE slot_name = '"
                        + slot
                        + "'"))
            .longValue();
    // Behind the end of the busy table's WAL, so what follows has to move it. Not by the whole 8
    // MB:
    // a heartbeat emitted while the insert ran is confirmed at its own position inside that WAL
    // (seen under the full suite's load: 0.67 MB held).
    assertThat(held).as("WAL the slot held just after the busy table's insert").isPositive();

    await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () ->
                Boolean.TRUE.equals(
                    db.adminQuery(
                        "SELECT confirmed_flush_lsn > '"
                            + afterBusy
                            + "'::pg_lsn FROM pg_replication_slots WHERE slot_name = '"
                            + slot
                            + "'")));
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () -> {
              String metrics = metrics(port);
              Matcher m = SLOT_BEHIND.matcher(metrics);
              assertThat(m.find()).as(metrics).isTrue();
              assertThat(Double.parseDouble(m.group(1))).isLessThan(1 << 20);
              assertThat(metrics)
                  .contains("outbox_relay_slot_wal_status{wal_status=\"reserved\"} 1.0")
                  .contains("outbox_relay_slot_wal_status{wal_status=\"lost\"} 0.0");
            });
    java.io.StringWriter status = new java.io.StringWriter();
    new io.outboxrelay.relay.admin.RelayStatus(
            settings.parsedBy(io.outboxrelay.relay.testing.Configs::parse),
            new java.io.PrintWriter(status))
        .print(false);
    assertThat(status.toString())
        .contains("slot:")
        .contains(slot + ", confirmed_flush_lsn ")
        .contains("wal_status reserved, read by a relay")
        .contains("slot holds:")
        .containsPattern("position: +[0-9A-F]+/[0-9A-F]+ \\(outbox_relay_offsets\\)");
    // Nothing but the one event was published: heartbeats and their messages publish nothing.
    Ledger.Result result = ledger.check(topics.readAll(ledger, Duration.ofSeconds(10)));
    assertThat(result.received()).as(result.summary()).isEqualTo(1);
  }

  private String metrics(int port) throws Exception {
    HttpResponse<String> r =
        http.send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics"))
                .timeout(Duration.ofSeconds(5))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    return r.body();
  }
}
