package io.outboxrelay.relay.source.cdc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.outboxrelay.relay.testing.Cli;
import io.outboxrelay.relay.testing.InProcessRun;
import io.outboxrelay.testsupport.outbox.Ledger;
import io.outboxrelay.testsupport.outbox.OutboxDatabase;
import io.outboxrelay.testsupport.outbox.RelayRun;
import io.outboxrelay.testsupport.outbox.RelaySettings;
import io.outboxrelay.testsupport.outbox.SourceDatabase;
import io.outboxrelay.testsupport.outbox.SteadyWriter;
import io.outboxrelay.testsupport.outbox.TestTopics;
import io.outboxrelay.testsupport.stack.LocalStack;
import io.outboxrelay.testsupport.stack.PostgresBinaries;
import io.outboxrelay.testsupport.stack.PostgresServer;
import io.outboxrelay.testsupport.stack.TcpProxy;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A primary failover under a streaming CDC relay on PostgreSQL 17 (the bundled binaries, {@link
 * PostgresBinaries}), with real processes: a primary and a streaming standby (a physical slot,
 * {@code hot_standby_feedback}, {@code sync_replication_slots=on}; on the primary the standby is
 * synchronous and listed in {@code synchronized_standby_slots}), the application and the relay
 * reaching "the primary" through one address ({@link TcpProxy}, as a virtual IP or a DNS name). The
 * primary is killed (SIGKILL) while the application writes, the standby promoted and the address
 * moved to it. With {@code cdc.slot.failover} (the default) the relay continues from the slot's
 * copy on the new primary: every event is checked by id and per-aggregate order, none is lost and
 * none published that the new primary does not hold. Without it the new primary has no slot and the
 * relay stops with one ERROR naming it and the recovery.
 */
class PostgresCdcPrimaryFailoverIT {

  private static final Logger LOG = LoggerFactory.getLogger(PostgresCdcPrimaryFailoverIT.class);
  private static final String STANDBY_SLOT = "standby1";

  @TempDir Path dir;
  private PostgresServer primary;
  private PostgresServer standby;
  private TcpProxy address;
  private OutboxDatabase db;
  private SourceDatabase app;
  private TestTopics topics;
  private String name;
  private Ledger ledger;

  @BeforeEach
  void setUp() {
    primary = PostgresServer.builder().binaries(PostgresBinaries.bundled()).start();
    db = PostgresCdcDatabases.selfServing(primary);
    address = TcpProxy.start(primary.host(), primary.port());
    app = db.through(address.host(), address.port());
    topics = TestTopics.fresh(LocalStack.shared().kafka().bootstrapServers(), "pgfailover");
    name = topics.name();
    ledger = topics.newLedger().semanticPayloads();
  }

  @AfterEach
  void tearDown() {
    if (address != null) {
      address.close();
    }
    if (standby != null) {
      standby.close();
    }
    if (primary != null) {
      primary.close();
    }
  }

  /** The primary's streaming standby, synchronous and listed in synchronized_standby_slots. */
  private void startStandby() {
    standby =
        PostgresServer.builder()
            .standbyOf(primary, STANDBY_SLOT)
            .setting("hot_standby_feedback", "on")
            .setting("sync_replication_slots", "on")
            .start();
    // Set once the standby streams: a synchronous standby that does not exist stalls every commit.
    primary.execute(
        "postgres",
        "ALTER SYSTEM SET synchronous_standby_names = '" + STANDBY_SLOT + "'",
        "ALTER SYSTEM SET synchronized_standby_slots = '" + STANDBY_SLOT + "'",
        "SELECT pg_reload_conf()");
  }

  private Path config(boolean failover) {
    return RelaySettings.cdc(app, topics.bootstrap(), name)
        .without("cdc.server.id")
        .with("cdc.heartbeat.interval", "500ms")
        .with("cdc.slot.failover", String.valueOf(failover))
        .writeTo(dir.resolve("relay.properties"));
  }

  private void awaitPublished(int atLeast) {
    assertThat(topics.readAtLeast(atLeast, Duration.ofSeconds(120)))
        .as("records published")
        .hasSizeGreaterThanOrEqualTo(atLeast);
  }

  /**
   * The slot as the standby has it: whether its copy is synchronised and kept (not temporary). The
   * copy is kept once the primary's slot moved past the standby's horizon, which needs a snapshot
   * of running transactions in the WAL: the background writer logs one every 15 s, this asks for
   * one at once ({@code pg_log_standby_snapshot}).
   */
  private boolean standbyHoldsTheSlot() throws Exception {
    primary.execute("postgres", "SELECT pg_log_standby_snapshot()");
    try (Connection c = standby.connect("postgres");
        PreparedStatement ps =
            c.prepareStatement(
                "SELECT synced AND NOT temporary AND failover FROM pg_replication_slots"
                    + " WHERE slot_name = ?")) {
      ps.setString(1, PostgresReplication.slotName(name));
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() && rs.getBoolean(1);
      }
    }
  }

  private long rowsOnTheNewPrimary() throws Exception {
    try (Connection c = standby.connect(db.name());
        java.sql.Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT count(*) FROM outbox_events")) {
      rs.next();
      return rs.getLong(1);
    }
  }

  /** Kills the primary, promotes the standby and moves the address to it. */
  private void failOver() {
    primary.kill();
    LOG.info("{}: primary killed", name);
    standby.promote();
    address.retarget(standby.host(), standby.port());
    address.cut(); // connections to the dead primary, as a moved virtual IP leaves them
  }

  @Test
  void theRelayContinuesFromItsFailoverSlotOnThePromotedStandby() throws Exception {
    try (Connection c = primary.connect("postgres")) {
      assertThat(PostgresPreflight.serverVersion(c))
          .isGreaterThanOrEqualTo(FailoverSlot.FIRST_VERSION);
    }
    startStandby();
    Path config = config(true);
    try (RelayRun relay = InProcessRun.run("relay", dir, config)) {
      Ledger.Result result;
      try (SteadyWriter writer = SteadyWriter.start(app, ledger, "order", 150, 30, 3)) {
        awaitPublished(300);
        await()
            .atMost(Duration.ofSeconds(90))
            .pollInterval(Duration.ofMillis(250))
            .until(this::standbyHoldsTheSlot);
        awaitPublished(ledger.size() + 150); // the copy follows a slot that keeps moving
        failOver();
        int writtenBefore = ledger.size();
        awaitPublished(writtenBefore + 450); // written on the new primary, and published
        writer.stop(Duration.ofSeconds(60));
      }
      result = topics.check(ledger, Duration.ofSeconds(120));
      assertThat(result.lost()).as(result.summary()).isZero();
      assertThat(result.outOfOrder()).as(result.summary()).isZero();
      assertThat(result.unexpected()).as("published, not on the new primary").isZero();
      assertThat(result.mismatches()).as(result.summary()).isEmpty();
      // The relay made the slot a failover slot and never lost it.
      String log = relay.log();
      log.lines()
          .filter(l -> l.contains(" WARN ") || l.contains(" ERROR ") || l.contains("slot"))
          .map(l -> l.length() > 300 ? l.substring(0, 300) + "..." : l)
          .forEach(l -> LOG.info("relay: {}", l));
      assertThat(log).contains("is now a failover slot");
      assertThat(log).doesNotContain("does not exist (dropped");
      assertThat(relay.isAlive()).as(log).isTrue();
      // The ledger holds what the new primary holds: every row there, each once.
      assertThat(rowsOnTheNewPrimary()).isEqualTo(ledger.size());
      // status, on the new primary, says what the slot is.
      Cli.Result status = Cli.expect(0, "status", "--config", config.toString());
      assertThat(status.out()).containsPattern("slot: .*, read by a relay, failover slot");
      relay.terminate();
      assertThat(relay.waitFor(Duration.ofSeconds(60))).as(relay.log()).isZero();
    }
  }

  @Test
  void aSlotTheEngineMakesIsAFailoverSlotFromTheStart() throws Exception {
    // cdc.first.start=skip: no first start, Debezium's connector makes the slot itself.
    Path config =
        RelaySettings.cdc(app, topics.bootstrap(), name)
            .without("cdc.server.id")
            .with("cdc.first.start", "skip")
            .writeTo(dir.resolve("relay.properties"));
    try (RelayRun relay = InProcessRun.run("relay", dir, config)) {
      relay.awaitReady();
      try (Connection c = primary.connect(db.name())) {
        FailoverSlot.Slot slot = FailoverSlot.slot(c, PostgresReplication.slotName(name));
        assertThat(slot).as(relay.log()).isNotNull();
        assertThat(slot.failover()).as("the slot's failover flag").isTrue();
      }
      assertThat(relay.log()).doesNotContain("is now a failover slot"); // made so, not altered
      relay.terminate();
      assertThat(relay.waitFor(Duration.ofSeconds(60))).as(relay.log()).isZero();
    }
  }

  @Test
  void withoutAFailoverSlotThePromotedStandbyHasNoSlotAndTheRelayStopsSayingSo() throws Exception {
    startStandby();
    Path config = config(false);
    try (RelayRun relay = InProcessRun.run("relay", dir, config)) {
      try (SteadyWriter writer = SteadyWriter.start(app, ledger, "order", 150, 30, 3)) {
        awaitPublished(300);
        try (Connection c = primary.connect(db.name())) {
          FailoverSlot.Slot slot = FailoverSlot.slot(c, PostgresReplication.slotName(name));
          assertThat(slot).isNotNull();
          assertThat(slot.failover()).as("the slot's failover flag").isFalse();
        }
        assertThat(standbyHoldsTheSlot()).isFalse();
        failOver();
        assertThat(relay.waitFor(Duration.ofSeconds(120))).as(relay.log()).isEqualTo(1);
        writer.stop(Duration.ofSeconds(60));
      }
      String log = relay.log();
      assertThat(log)
          .containsPattern(
              "(?m)^\\S+ ERROR .*replication slot "
                  + PostgresReplication.slotName(name)
                  + " does not exist .*promoted standby.*handoff --to polling");
      assertThat(log).doesNotContain("is now a failover slot");
    }
  }
}
