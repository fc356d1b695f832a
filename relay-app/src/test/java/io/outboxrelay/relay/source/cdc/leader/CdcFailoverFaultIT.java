package io.outboxrelay.relay.source.cdc.leader;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.outboxrelay.relay.testing.OwnMariaDbFaultTest;
import io.outboxrelay.testsupport.outbox.Ledger;
import io.outboxrelay.testsupport.outbox.RelayProcess;
import io.outboxrelay.testsupport.outbox.RelaySettings;
import io.outboxrelay.testsupport.outbox.SteadyWriter;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Several CDC relays on one outbox table, as real processes: one publishes, the others stand by;
 * the leader killed, paused past its lease, or cut off by a database restart. A ledger checks every
 * event by id and per-aggregate order. Default lease and renewal interval.
 */
class CdcFailoverFaultIT extends OwnMariaDbFaultTest {

  private static final Logger LOG = LoggerFactory.getLogger(CdcFailoverFaultIT.class);
  private static final String ROLE = ".*\\] (leader \\(epoch|standby \\(holder).*";

  @Override
  protected String label() {
    return "ha";
  }

  private RelayProcess start(String process, Path config) {
    RelayProcess p = RelayProcess.start(process, dir, "run", "--config", config.toString());
    p.process().awaitLogLine(ROLE, Duration.ofSeconds(90));
    return p;
  }

  private static boolean leads(RelayProcess p) {
    return p.log().contains("] leader (epoch");
  }

  /** Waits (up to 60 s) until at least {@code atLeast} records were published. */
  private void readPublished(int atLeast) {
    reader().readUntil(records -> records.size() >= atLeast, Duration.ofSeconds(60));
  }

  /**
   * Nothing of the ledger lost, out of order or different. Records of another ledger are not
   * counted against it: a test may keep two ledgers on the same topics.
   */
  private static void assertNothingOfTheLedgerLostOrReordered(Ledger.Result result) {
    assertThat(result.lost()).as(result.summary()).isZero();
    assertThat(result.outOfOrder()).as(result.summary()).isZero();
    assertThat(result.mismatches()).as(result.summary()).isEmpty();
  }

  /** The lease row: holder and epoch. */
  private String lease() throws Exception {
    try (Connection c = db.app();
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT holder, epoch FROM outbox_relay_leases")) {
      return rs.next() ? rs.getString(1) + "#" + rs.getLong(2) : "none";
    }
  }

  @Test
  void exactlyOneOfThreeStartedAtOncePublishesAndOneStandbyTakesOverWhenItIsKilled()
      throws Exception {
    Path config = RelaySettings.cdc(db, bootstrap, name).writeTo(dir.resolve("relay.properties"));
    RelayProcess a = RelayProcess.start("relay-a", dir, "run", "--config", config.toString());
    RelayProcess b = RelayProcess.start("relay-b", dir, "run", "--config", config.toString());
    RelayProcess c = RelayProcess.start("relay-c", dir, "run", "--config", config.toString());
    try (a;
        b;
        c) {
      List<RelayProcess> relays = List.of(a, b, c);
      for (RelayProcess r : relays) {
        r.process().awaitLogLine(ROLE, Duration.ofSeconds(90));
      }
      List<RelayProcess> leaders = relays.stream().filter(CdcFailoverFaultIT::leads).toList();
      assertThat(leaders).as("exactly one leader of three").hasSize(1);
      RelayProcess leader = leaders.get(0);
      List<RelayProcess> standbys = relays.stream().filter(r -> r != leader).toList();
      leader.awaitReady();
      for (RelayProcess standby : standbys) {
        assertThat(standby.log()).contains("] standby (holder " + name + "@");
      }

      Ledger.Result result;
      RelayProcess successor;
      try (SteadyWriter writer = SteadyWriter.start(db, ledger, "order", 300, 40, 2)) {
        readPublished(600);
        for (RelayProcess standby : standbys) {
          assertThat(standby.log()).doesNotContain("ready: streaming");
        }

        leader.process().kill();
        long killed = System.nanoTime();
        await()
            .atMost(Duration.ofSeconds(30))
            .until(() -> standbys.stream().anyMatch(r -> r.log().contains("] leader (epoch 2)")));
        successor =
            standbys.stream().filter(r -> r.log().contains("] leader (epoch 2)")).findFirst().get();
        successor.awaitReady();
        LOG.info(
            "{}: a standby streams {} ms after the kill",
            name,
            (System.nanoTime() - killed) / 1_000_000);
        readPublished(ledger.size() + 300);
        writer.stop(Duration.ofSeconds(30));
      }
      result = awaitAll(ledger);
      assertNothingOfTheLedgerLostOrReordered(result);
      // At-least-once: what the killed leader published after its last position commit (every
      // 100 ms, cdc.commit.interval) comes again.
      assertThat(result.duplicates()).as(result.summary()).isLessThanOrEqualTo(300);
      RelayProcess other = standbys.get(0) == successor ? standbys.get(1) : standbys.get(0);
      assertThat(other.log()).as(roles(other)).doesNotContain("] leader (epoch");
      assertThat(lastRole(other)).as(roles(other)).isEqualTo("standby");
      successor.process().terminate();
      assertThat(successor.waitFor(Duration.ofSeconds(60))).as(successor.log()).isZero();
      assertThat(successor.log()).contains("gave up the lease (epoch 2)");
    }
  }

  @Test
  void aLeaderPausedPastItsLeaseIsReplacedAndPublishesNothingWhenItWakes() throws Exception {
    Path config = RelaySettings.cdc(db, bootstrap, name).writeTo(dir.resolve("relay.properties"));
    try (RelayProcess a = start("relay-a", config);
        RelayProcess b = start("relay-b", config)) {
      assertThat(leads(a)).isTrue();
      a.awaitReady();
      assertThat(b.log()).contains("] standby (holder ");
      Ledger later = new Ledger(RelaySettings.topicPrefix(name));
      try (SteadyWriter writer = SteadyWriter.start(db, ledger, "order", 300, 40, 2)) {
        readPublished(600);
        a.process().pause();
        b.process().awaitLogLine(".*\\] leader \\(epoch 2\\).*", Duration.ofSeconds(30));
        b.awaitReady();
        readPublished(ledger.size() + 300);

        a.process().resume();
        a.process().awaitLogLine(".*\\] lost the lease \\(epoch 1\\).*", Duration.ofSeconds(30));
        // The holder's epoch is 2, or more where the new leader lost and took the lease again on a
        // starved machine: what matters is that the old leader stands by.
        a.process()
            .awaitLogLine(
                ".*\\] standby \\(holder .*epoch ([2-9]|\\d{2,})\\).*", Duration.ofSeconds(30));
        writer.stop(Duration.ofSeconds(30));
      }
      // Events written once the old leader is awake again come once: it does not publish them.
      try (SteadyWriter writer = SteadyWriter.start(db, later, "invoice", 300, 20, 1)) {
        await().atMost(Duration.ofSeconds(30)).until(() -> later.size() >= 300);
        writer.stop(Duration.ofSeconds(30));
      }
      assertNothingOfTheLedgerLostOrReordered(awaitAll(ledger));
      Ledger.Result afterWake = awaitAll(later);
      assertNothingOfTheLedgerLostOrReordered(afterWake);
      assertThat(afterWake.duplicates()).as(afterWake.summary()).isZero();
      LOG.info("{}: roles\n{}{}", name, roles(a), roles(b));
      // Woken, the old leader published nothing in its old epoch: it stopped its engine without
      // streaming again, and could publish again only after taking the lease in a new epoch.
      String awake = a.log().substring(a.log().indexOf("] lost the lease (epoch 1)"));
      int nextTerm = awake.indexOf("] leader (epoch");
      String standingBy = nextTerm < 0 ? awake : awake.substring(0, nextTerm);
      assertThat(standingBy).as(roles(a)).doesNotContain("ready: streaming inserts");
      assertThat(lease()).as(roles(a) + roles(b)).doesNotEndWith("#1");
    }
  }

  /**
   * A relay paused past its lease while its engine is still starting (a busy host, a long GC) lost
   * the lease before it streamed: it stays up as a standby, takes the lease again in the next epoch
   * (no other relay wants it) and publishes every event, once. It used to take the engine's
   * complaint about being stopped mid-start for a failure and exit 1.
   */
  @Test
  void aRelayPausedPastItsLeaseWhileItsEngineStartsStaysUpAndLeadsAgain() throws Exception {
    Path config = RelaySettings.cdc(db, bootstrap, name).writeTo(dir.resolve("relay.properties"));
    try (RelayProcess a =
        RelayProcess.start("relay-a", dir, "run", "--config", config.toString())) {
      a.process().awaitLogLine(".*\\] leader \\(epoch 1\\).*", Duration.ofSeconds(90));
      a.process().pause();
      Thread.sleep(8_000); // past cdc.leader.lease (6 s)
      a.process().resume();
      a.process().awaitLogLine(".*\\] lost the lease \\(epoch 1\\).*", Duration.ofSeconds(30));
      String log = a.log();
      assertThat(log.substring(0, log.indexOf("] lost the lease (epoch 1)")))
          .as("the pause must land before the engine streamed, or this test proves nothing")
          .doesNotContain("ready: streaming inserts");
      a.process().awaitLogLine(".*\\] leader \\(epoch 2\\).*", Duration.ofSeconds(30));
      a.awaitReady();
      // A relay that never streamed has no stored position: it starts from the binlog's end, so
      // the events to check are those written once it streams.
      try (SteadyWriter writer = SteadyWriter.start(db, ledger, "order", 200, 20, 2)) {
        readPublished(400);
        writer.stop(Duration.ofSeconds(30));
      }
      Ledger.Result result = awaitAll(ledger);
      assertNothingOfTheLedgerLostOrReordered(result);
      assertThat(a.process().isAlive()).as(a.log()).isTrue();
      assertThat(a.log()).doesNotContain("stopping after a fatal error");
    }
  }

  /**
   * The leader freezes in the last round trip of a position commit, its fence: the lease row is
   * locked by its open transaction, and a standby's acquisition waits on that lock. The test makes
   * that moment deterministic: it holds the lease row itself until the leader's fence waits on it,
   * freezes the leader, then lets the fence run. The server ends the frozen session after half a
   * lease, so the standby takes over; without that bound it would wait until the leader woke.
   */
  @Test
  void aLeaderFrozenInItsPositionCommitsFenceIsReplacedOnceTheServerEndsItsTransaction()
      throws Exception {
    Path config = RelaySettings.cdc(db, bootstrap, name).writeTo(dir.resolve("relay.properties"));
    try (RelayProcess a = start("relay-a", config);
        RelayProcess b = start("relay-b", config)) {
      assertThat(leads(a)).isTrue();
      a.awaitReady();
      try (SteadyWriter writer = SteadyWriter.start(db, ledger, "order", 300, 40, 2);
          Connection root = server.adminConnection(db.name())) {
        readPublished(600);
        long fence;
        long frozen;
        try (Connection lock = server.adminConnection(db.name())) {
          lock.setAutoCommit(false);
          try (Statement st = lock.createStatement()) {
            st.executeQuery("SELECT epoch FROM outbox_relay_leases FOR UPDATE").close();
          }
          fence = awaitFenceWaiting(root);
          a.process().pause();
          frozen = System.nanoTime();
          lock.commit();
        }
        // The fence's UPDATE ran once the lock was released: its session now holds the open
        // transaction, until the server ends it after half a lease (3 s). A test thread starved for
        // that long sees the session gone instead; either way the fence was in the server.
        boolean[] seenOpen = {false};
        await()
            .atMost(Duration.ofSeconds(30))
            .pollInterval(Duration.ofMillis(20))
            .until(
                () -> {
                  seenOpen[0] = holdsAnOpenTransaction(root, fence);
                  return seenOpen[0] || !sessionExists(root, fence);
                });
        LOG.info(
            "{}: the frozen fence's transaction {}",
            name,
            seenOpen[0] ? "seen open" : "already ended by the server when first looked at");
        if (seenOpen[0]) {
          // Its open transaction holds the lease row: no standby has taken the lease yet.
          assertThat(lease()).as("the frozen leader's epoch").endsWith("#1");
        }

        b.process().awaitLogLine(".*\\] leader \\(epoch 2\\).*", Duration.ofSeconds(30));
        LOG.info(
            "{}: the standby took over {} ms after the leader froze in its fence",
            name,
            (System.nanoTime() - frozen) / 1_000_000);
        assertThat(sessionExists(root, fence))
            .as("the frozen leader's session, ended by the server")
            .isFalse();
        b.awaitReady();
        readPublished(ledger.size() + 300);

        a.process().resume();
        a.process().awaitLogLine(".*\\] lost the lease \\(epoch 1\\).*", Duration.ofSeconds(30));
        writer.stop(Duration.ofSeconds(30));
      }
      assertNothingOfTheLedgerLostOrReordered(awaitAll(ledger));
      assertThat(lease()).as(roles(a) + roles(b)).doesNotEndWith("#1");
    }
  }

  /** Waits until the leader's fence waits on the lease row; returns its session id. */
  private static long awaitFenceWaiting(Connection root) {
    long[] id = new long[1];
    await()
        .atMost(Duration.ofSeconds(10))
        .pollInterval(Duration.ofMillis(10))
        .until(
            () -> {
              try (Statement st = root.createStatement();
                  ResultSet rs =
                      st.executeQuery(
                          "SELECT ID FROM information_schema.PROCESSLIST WHERE COMMAND = 'Query'"
                              + " AND INFO LIKE 'UPDATE outbox_relay_leases SET renewed_at%'")) {
                if (rs.next()) {
                  id[0] = rs.getLong(1);
                  return true;
                }
                return false;
              }
            });
    return id[0];
  }

  /** Whether the session is idle with its statement done and its transaction still open. */
  private static boolean holdsAnOpenTransaction(Connection root, long session) throws Exception {
    try (Statement st = root.createStatement();
        ResultSet rs =
            st.executeQuery(
                "SELECT COUNT(*) FROM information_schema.PROCESSLIST p JOIN"
                    + " information_schema.INNODB_TRX t ON t.trx_mysql_thread_id = p.ID WHERE"
                    + " p.ID = "
                    + session
                    + " AND p.COMMAND = 'Sleep'")) {
      return rs.next() && rs.getLong(1) == 1;
    }
  }

  private static boolean sessionExists(Connection root, long session) throws Exception {
    try (Statement st = root.createStatement();
        ResultSet rs =
            st.executeQuery(
                "SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE ID = " + session)) {
      return rs.next() && rs.getLong(1) == 1;
    }
  }

  /**
   * The lease, the position and the schema history are keyed by relay.name: a relay of another name
   * that took over when the leader stopped would start from its own position (here, the current
   * binlog position) and skip what was committed during the switch. It is refused at start, naming
   * both names and the fix, while the leader runs and after it stopped; the leader's own name then
   * takes over with nothing lost.
   */
  @Test
  void aRelayWithAnotherNameOnTheSameTableIsRefusedAndNothingCommittedDuringTheSwitchIsLost()
      throws Exception {
    Path config = RelaySettings.cdc(db, bootstrap, name).writeTo(dir.resolve("a.properties"));
    Path other =
        RelaySettings.cdc(db, bootstrap, name)
            .with("relay.name", name + "-other")
            .writeTo(dir.resolve("b.properties"));
    RelayProcess a = start("relay-a", config);
    a.awaitReady(); // a first start publishes what is committed from its start on
    try (SteadyWriter writer = SteadyWriter.start(db, ledger, "order", 200, 40, 2)) {
      try (a) {
        await().atMost(Duration.ofSeconds(30)).until(() -> ledger.size() >= 200);
        assertRefused(startRefused("relay-b", other), "its leader " + name + "@");
        a.process().terminate();
        assertThat(a.waitFor(Duration.ofSeconds(60))).as(a.log()).isZero();
      }
      // The leader is gone and the writer goes on: the other name is refused all the same.
      assertRefused(startRefused("relay-b2", other), "its last leader " + name + "@");
      try (RelayProcess a2 = start("relay-a2", config)) {
        a2.awaitReady();
        int before = ledger.size();
        await().atMost(Duration.ofSeconds(30)).until(() -> ledger.size() >= before + 200);
        writer.stop(Duration.ofSeconds(30));
        Ledger.Result result = awaitAll(ledger);
        assertNothingOfTheLedgerLostOrReordered(result);
      }
    }
  }

  /**
   * Regression: replicas of one relay.name and server id with different cdc.leader.table each led
   * in their own table, took the binlog connection from each other every few seconds and published
   * duplicates (12 in 40 events). A replica that finds the other leading in another leases table is
   * refused at start, naming the setting and both tables.
   */
  @Test
  void aReplicaWithAnotherLeaderTableIsRefusedAtStartNamingTheSetting() throws Exception {
    // One relay.name and cdc.server.id (the same file), another cdc.leader.table.
    RelaySettings settings = RelaySettings.cdc(db, bootstrap, name);
    Path config = settings.writeTo(dir.resolve("a.properties"));
    Path other =
        settings
            .with("cdc.leader.table", "outbox_relay_leases_b")
            .writeTo(dir.resolve("b.properties"));
    createLeasesTable("outbox_relay_leases_b");
    try (RelayProcess a = start("relay-a", config)) {
      a.awaitReady();
      try (RelayProcess b = startRefused("relay-b", other)) {
        assertThat(b.waitFor(Duration.ofSeconds(90))).as(b.log()).isEqualTo(2);
        assertThat(b.log().lines().filter(l -> l.contains("startup check failed")))
            .as(b.log())
            .singleElement()
            .asString()
            .contains("cdc.leader.table=outbox_relay_leases_b, but " + name + "@")
            .contains(
                "of relay.name '"
                    + name
                    + "' leads "
                    + db.name()
                    + ".outbox_events in leases table outbox_relay_leases (")
            .contains("set cdc.leader.table=outbox_relay_leases on this relay");
        assertThat(b.log()).doesNotContain("ready: streaming");
      }
      assertThat(a.process().isAlive()).as(a.log()).isTrue();
      assertThat(a.log()).doesNotContain("taken over by another reader");
    }
  }

  /**
   * The same mistake when the start check cannot see it (the first replica was paused past its
   * lease while the second started): once they take the binlog connection from each other, the one
   * that lost it finds the other leading in another leases table and stops with one ERROR naming
   * the setting, instead of retaking it for ever; the other publishes on.
   */
  @Test
  void replicasThatDisagreeOnTheLeaderTableStopTakingTheBinlogFromEachOther() throws Exception {
    // One relay.name and cdc.server.id (the same file), another cdc.leader.table.
    RelaySettings settings = RelaySettings.cdc(db, bootstrap, name);
    Path config = settings.writeTo(dir.resolve("a.properties"));
    Path other =
        settings
            .with("cdc.leader.table", "outbox_relay_leases_b")
            .writeTo(dir.resolve("b.properties"));
    createLeasesTable("outbox_relay_leases_b");
    try (RelayProcess a = start("relay-a", config)) {
      a.awaitReady();
      a.process().pause();
      await()
          .atMost(Duration.ofSeconds(30))
          .until(
              () ->
                  ((Number)
                              db.adminQuery(
                                  "SELECT COUNT(*) FROM outbox_relay_leases WHERE expires_at >"
                                      + " NOW(6)"))
                          .intValue()
                      == 0);
      try (RelayProcess b = start("relay-b", other)) {
        b.awaitReady();
        a.process().resume();
        await()
            .atMost(Duration.ofSeconds(90))
            .until(() -> !a.process().isAlive() || !b.process().isAlive());
        RelayProcess stopped = a.process().isAlive() ? b : a;
        RelayProcess on = stopped == a ? b : a;
        assertThat(stopped.waitFor(Duration.ofSeconds(30))).as(stopped.log()).isNotZero();
        List<String> errors = stopped.log().lines().filter(l -> l.contains(" ERROR ")).toList();
        assertThat(errors).as(stopped.log()).isNotEmpty();
        assertThat(String.join("\n", errors))
            .contains("cdc.leader.table=")
            .contains("outbox_relay_leases_b")
            .contains("in leases table outbox_relay_leases");
        assertThat(on.process().isAlive()).as(on.log()).isTrue();
        LOG.info("{}: roles\n{}{}", name, roles(a), roles(b));
      }
    }
  }

  /** A second leases table, as config/mysql/relay-storage.sql creates the first. */
  private void createLeasesTable(String table) {
    db.admin(
        String.format(LeadershipStore.DDL, table),
        "GRANT SELECT, INSERT, UPDATE ON "
            + db.name()
            + "."
            + table
            + " TO '"
            + db.relayUser()
            + "'@'127.0.0.1'");
  }

  private RelayProcess startRefused(String process, Path config) {
    return RelayProcess.start(process, dir, "run", "--config", config.toString());
  }

  private void assertRefused(RelayProcess b, String leader) {
    try (b) {
      assertThat(b.waitFor(Duration.ofSeconds(90))).as(b.log()).isEqualTo(2);
      assertThat(b.log())
          .contains(db.name() + ".outbox_events is served by relay.name '" + name + "' (" + leader)
          .contains("and this relay is '" + name + "-other'")
          .contains("Give this relay relay.name=" + name)
          .doesNotContain("ready: streaming");
      assertThat(b.stackTraceLines()).as(b.log()).isEmpty();
    }
  }

  @Test
  void exactlyOneLeaderComesBackAfterTheDatabaseRestarts() throws Exception {
    Path config = RelaySettings.cdc(db, bootstrap, name).writeTo(dir.resolve("relay.properties"));
    try (RelayProcess a = start("relay-a", config);
        RelayProcess b = start("relay-b", config)) {
      a.awaitReady();
      try (SteadyWriter writer = SteadyWriter.start(db, ledger, "order", 200, 40, 2)) {
        readPublished(400);
        server.kill();
        Thread.sleep(8_000); // the outage, longer than the lease
        server.start();
        int before = ledger.size();
        readPublished(before + 400);
        writer.stop(Duration.ofSeconds(60));
      }
      assertNothingOfTheLedgerLostOrReordered(awaitAll(ledger));
      String holder = lease();
      RelayProcess leader = holder.startsWith(holderOf(a)) ? a : b;
      RelayProcess standby = leader == a ? b : a;
      assertThat(lastRole(leader)).as(holder).startsWith("leader");
      assertThat(lastRole(standby)).as(holder).startsWith("standby");
    }
  }

  private static String holderOf(RelayProcess p) {
    var m = Pattern.compile("holder=(\\S+)").matcher(p.log());
    return m.find() ? m.group(1) : "?";
  }

  /** The role changes in a relay's log, for assertion messages. */
  private static String roles(RelayProcess p) {
    StringBuilder b = new StringBuilder();
    p.log()
        .lines()
        .filter(
            l ->
                l.matches(".*\\] (leader \\(|standby \\(|lost the lease|electing).*")
                    || l.contains(" ERROR "))
        .forEach(l -> b.append(l).append('\n'));
    return b.toString();
  }

  private static String lastRole(RelayProcess p) {
    String role = "";
    var m = Pattern.compile("\\] (leader \\(epoch|standby|lost the lease)").matcher(p.log());
    while (m.find()) {
      role = m.group(1);
    }
    return role;
  }
}
