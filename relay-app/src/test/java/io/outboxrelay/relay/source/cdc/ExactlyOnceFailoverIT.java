package io.outboxrelay.relay.source.cdc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.outboxrelay.relay.testing.OwnMariaDbFaultTest;
import io.outboxrelay.testsupport.outbox.Ledger;
import io.outboxrelay.testsupport.outbox.RelayProcess;
import io.outboxrelay.testsupport.outbox.RelaySettings;
import io.outboxrelay.testsupport.outbox.SteadyWriter;
import io.outboxrelay.testsupport.stack.ConsumedRecord;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A leader and a standby with {@code delivery.guarantee=exactly-once}, as real processes, under a
 * steady load: the leader killed with SIGKILL and started again as the standby, then the new leader
 * killed, and so on, with one freeze (SIGSTOP) of the leader past its lease in between. Every event
 * once for a {@code read_committed} consumer, by id and per-aggregate order. The time from each
 * fault to the first record the next leader sent is logged (measured, not asserted).
 */
class ExactlyOnceFailoverIT extends OwnMariaDbFaultTest {

  private static final Logger LOG = LoggerFactory.getLogger(ExactlyOnceFailoverIT.class);
  private static final String ROLE = ".*\\] (leader \\(epoch|standby \\(holder).*";
  private static final Pattern HOLDER_PID = Pattern.compile("^.*@.*:(\\d+)-[0-9a-f]+$");

  /** A fault: what, and when (wall clock, ms) it had happened. */
  private record Fault(String what, long atMillis) {}

  @Override
  protected String label() {
    return "eosha";
  }

  private RelayProcess start(String process, Path config) {
    RelayProcess p = RelayProcess.start(process, dir, "run", "--config", config.toString());
    p.process().awaitLogLine(ROLE, Duration.ofSeconds(90));
    return p;
  }

  private static int count(RelayProcess p, String text) {
    String log = p.log();
    int n = 0;
    for (int i = log.indexOf(text); i >= 0; i = log.indexOf(text, i + 1)) {
      n++;
    }
    return n;
  }

  /** The lease row: its epoch and the holder's process id. */
  private long[] lease() throws Exception {
    try (Connection c = db.app();
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT holder, epoch FROM outbox_relay_leases")) {
      if (!rs.next()) {
        return new long[] {0, -1};
      }
      Matcher m = HOLDER_PID.matcher(rs.getString(1));
      return new long[] {rs.getLong(2), m.matches() ? Long.parseLong(m.group(1)) : -1};
    }
  }

  /**
   * Waits until {@code next} leads in an epoch after {@code epoch} and streams, and publishing went
   * on past what was written meanwhile.
   */
  private void awaitTakeover(RelayProcess next, long epoch, int readyBefore) {
    await()
        .atMost(Duration.ofSeconds(60))
        .until(
            () -> {
              long[] l = lease();
              return l[0] > epoch && l[1] == next.process().pid();
            });
    await()
        .atMost(Duration.ofSeconds(60))
        .until(() -> count(next, "] ready: streaming") > readyBefore);
    awaitPublished(ledger.size() + 300);
  }

  @Test
  void aLeaderAndAStandbyPublishEveryEventOnceThroughAlternatingKillsAndAFreeze() throws Exception {
    Path config =
        RelaySettings.cdc(db, bootstrap, name)
            .with("delivery.guarantee", "exactly-once")
            .with("delivery.progress.topic", name + "-progress")
            .writeTo(dir.resolve("relay.properties"));
    List<RelayProcess> started = new ArrayList<>();
    List<Fault> faults = new ArrayList<>();
    try {
      RelayProcess leader = start("relay-1", config);
      started.add(leader);
      leader.awaitReady();
      assertThat(leader.log()).contains("] leader (epoch 1)");
      RelayProcess standby = start("relay-2", config);
      started.add(standby);
      assertThat(standby.log()).contains("] standby (holder ");
      int processes = 2;
      try (SteadyWriter writer = SteadyWriter.start(db, ledger, "order", 300, 40, 2)) {
        awaitPublished(600);
        for (int round = 1; round <= 5; round++) {
          long epoch = lease()[0];
          int readyBefore = count(standby, "] ready: streaming");
          if (round == 3) {
            // Frozen past its lease: the standby takes over; woken, the old leader stands by.
            int standingBy = count(leader, "] standby (holder ");
            leader.process().pause();
            faults.add(new Fault("freeze of " + leader.process().name(), now()));
            awaitTakeover(standby, epoch, readyBefore);
            RelayProcess frozen = leader;
            frozen.process().resume();
            await()
                .atMost(Duration.ofSeconds(60))
                .until(() -> count(frozen, "] standby (holder ") > standingBy);
            leader = standby;
            standby = frozen;
          } else {
            leader.process().kill();
            assertThat(leader.waitFor(Duration.ofSeconds(30))).isEqualTo(137);
            faults.add(new Fault("kill -9 of " + leader.process().name(), now()));
            awaitTakeover(standby, epoch, readyBefore);
            RelayProcess restarted = start("relay-" + ++processes, config);
            started.add(restarted);
            assertThat(restarted.log()).as(restarted.log()).contains("] standby (holder ");
            leader = standby;
            standby = restarted;
          }
        }
        writer.stop(Duration.ofSeconds(60));
      }
      List<ConsumedRecord> records =
          reader()
              .readUntilQuiet(
                  ledger::allArrived,
                  Duration.ofSeconds(120),
                  Duration.ofSeconds(2),
                  Duration.ofSeconds(60));
      Ledger.Result result = ledger.check(records);
      StringBuilder delays = new StringBuilder();
      for (Fault f : faults) {
        long first =
            records.stream()
                .mapToLong(ConsumedRecord::timestamp)
                .filter(t -> t > f.atMillis())
                .min()
                .orElse(-1);
        delays
            .append(f.what())
            .append(": the next leader's first record ")
            .append(first < 0 ? "never came" : (first - f.atMillis()) + " ms after the fault")
            .append('\n');
      }
      LOG.info("{}: {}\ndelay after each fault:\n{}", name, result.summary(), delays);
      for (RelayProcess p : started) {
        LOG.info("{}: terms of {}\n{}", name, p.process().name(), terms(p));
      }
      assertThat(faults).hasSize(5);
      assertThat(ledger.size()).isGreaterThan(5_000);
      assertNothingLostOrReordered(result);
      assertThat(result.duplicates()).as(result.summary()).isZero();
    } finally {
      started.forEach(RelayProcess::close);
    }
  }

  /** The lines of a relay's log that time its terms: role changes, the resume, streaming. */
  private static String terms(RelayProcess p) {
    StringBuilder b = new StringBuilder();
    p.log()
        .lines()
        .filter(
            l ->
                l.matches(".*\\] (leader \\(|standby \\(|lost the lease|ready: streaming).*")
                    || l.contains("] exactly-once: ")
                    || l.contains("transactions of this term end"))
        .forEach(l -> b.append(l).append('\n'));
    return b.toString();
  }

  private static long now() {
    return System.currentTimeMillis();
  }
}
