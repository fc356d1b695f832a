package io.outboxrelay.relay.source.polling;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.outboxrelay.relay.testing.OwnMariaDbFaultTest;
import io.outboxrelay.testsupport.outbox.Ledger;
import io.outboxrelay.testsupport.outbox.OutboxDatabase;
import io.outboxrelay.testsupport.outbox.RelayProcess;
import io.outboxrelay.testsupport.outbox.RelaySettings;
import io.outboxrelay.testsupport.outbox.SteadyWriter;
import io.outboxrelay.testsupport.stack.MariaDbServer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Polling relays and their database fail under load, with real processes: a relay process killed
 * with SIGKILL or frozen with SIGSTOP while it holds a batch, and {@code mariadbd} killed and
 * started again, while an application keeps writing. A ledger checks every event by id and each
 * aggregate's order; the relays run with the default lease (short, renewed while a batch is in
 * flight), so another process must take a dead one's batch over by itself, and a database outage
 * must be told once (a WARN, an INFO when it ends) without a stack trace.
 */
class PollingFaultIT extends OwnMariaDbFaultTest {

  private static final Logger LOG = LoggerFactory.getLogger(PollingFaultIT.class);
  private static final Pattern TAKEOVER =
      Pattern.compile("(?m)^(\\S+) .*took over (\\d+) events whose lease had expired");
  private static final Pattern LATE_FINISH =
      Pattern.compile(
          "(?m)lost the lease on \\d+ events before finishing them|were taken over by another"
              + " worker|could not finish \\d+ events");
  private static final Pattern OUTAGE_WARN =
      Pattern.compile(
          "(?m)^\\S+ WARN .*source database .* unreachable since .*; reconnecting every 1 s");

  @Override
  protected String label() {
    return "pollfault";
  }

  @Override
  protected OutboxDatabase newDatabase(MariaDbServer server) {
    return OutboxDatabase.on(server).grantPolling();
  }

  /** A polling relay started while its database is down waits for it, then claims at once. */
  @Test
  void aRelayStartedWhileTheDatabaseIsDownWaitsAndClaimsAsSoonAsItAnswers() throws Exception {
    server.stop();
    Path config =
        RelaySettings.polling(db, bootstrap, name).writeTo(dir.resolve("waiting.properties"));
    try (RelayProcess relay =
        RelayProcess.start("waiting", dir, "run", "--config", config.toString())) {
      relay
          .process()
          .awaitLogLine(
              ".* WARN .*source database .* unreachable since .*the relay starts as soon as it"
                  + " accepts connections.*",
              Duration.ofSeconds(60));
      server.start();
      try (SteadyWriter writer = SteadyWriter.start(db, ledger, "order", 200, 40, 2)) {
        relay.awaitReady();
        awaitPublished(200);
        writer.stop(Duration.ofSeconds(60));
      }
      assertNothingLostOrReordered(awaitAll());
      assertThat(STACK_FRAME.matcher(relay.log()).find()).as(relay.log()).isFalse();
      relay.process().terminate();
      assertThat(relay.waitFor(Duration.ofSeconds(60))).as(relay.log()).isZero();
    }
  }

  @Test
  void anotherProcessPublishesTheBatchOfAProcessKilledWhileHoldingIt() throws Exception {
    try (SteadyWriter writer = SteadyWriter.start(db, ledger, "order", 200, 40, 2);
        RelayProcess victim = relay("victim")) {
      awaitPublished(200);
      long leased = pauseWhileItHoldsALease(victim);
      try (RelayProcess survivor = relay("survivor")) {
        victim.process().kill();
        long killedAt = System.currentTimeMillis();
        LOG.info("{}: victim killed holding {} events", name, leased);
        victim.waitFor(Duration.ofSeconds(30));

        await().atMost(Duration.ofSeconds(60)).until(() -> TAKEOVER.matcher(survivor.log()).find());
        logTakeover(survivor, killedAt);
        int writtenBefore = ledger.size();
        awaitPublished(writtenBefore + 200);
        writer.stop(Duration.ofSeconds(60));

        Ledger.Result result = awaitAll();
        assertNothingLostOrReordered(result);
        assertThat(result.duplicates()).as(result.summary()).isLessThanOrEqualTo((int) leased);
        assertThat(STACK_FRAME.matcher(survivor.log()).find()).as(survivor.log()).isFalse();
      }
    }
  }

  @Test
  void aProcessFrozenLongerThanTheLeaseLosesItsBatchAndItsLateFinishChangesNothing()
      throws Exception {
    try (SteadyWriter writer = SteadyWriter.start(db, ledger, "order", 200, 40, 2);
        RelayProcess frozen = relay("frozen")) {
      awaitPublished(200);
      long leased = pauseWhileItHoldsALease(frozen);
      long frozenAt = System.currentTimeMillis();
      try (RelayProcess rescuer = relay("rescuer")) {
        await().atMost(Duration.ofSeconds(60)).until(() -> TAKEOVER.matcher(rescuer.log()).find());
        logTakeover(rescuer, frozenAt);
        frozen.process().resume();
        LOG.info("{}: frozen process resumed", name);

        // Its worker finds the rows taken over, by a renewal or by its fenced finish; or, frozen
        // inside a transaction, its session was ended by the server and its finish fails.
        await()
            .atMost(Duration.ofSeconds(60))
            .until(() -> LATE_FINISH.matcher(frozen.log()).find());
        int writtenBefore = ledger.size();
        awaitPublished(writtenBefore + 200);
        writer.stop(Duration.ofSeconds(60));

        Ledger.Result result = awaitAll();
        assertNothingLostOrReordered(result);
        assertThat(result.duplicates()).as(result.summary()).isLessThanOrEqualTo((int) leased);
        frozen.log().lines().filter(l -> LATE_FINISH.matcher(l).find()).forEach(LOG::info);
        await()
            .atMost(Duration.ofSeconds(30))
            .until(() -> count("status = 'PUBLISHED'") == ledger.size());
      }
    }
  }

  @Test
  void publishesEveryEventAndSaysSoOnceWhenTheDatabaseIsKilledAndRestarted() throws Exception {
    try (RelayProcess relay = relay("relay")) {
      try (SteadyWriter writer = SteadyWriter.start(db, ledger, "order", 200, 40, 2)) {
        awaitPublished(400);

        server.kill();
        LOG.info("{}: mariadbd killed", name);
        Thread.sleep(5_000); // the outage; the application keeps trying to write
        server.start();
        long backAt = System.currentTimeMillis();
        LOG.info("{}: mariadbd accepts connections again", name);

        int writtenBefore = ledger.size();
        awaitPublished(writtenBefore + 400); // events written after the restart: it recovered
        writer.stop(Duration.ofSeconds(60));
        logLines(relay, backAt);
      }
      assertNothingLostOrReordered(awaitAll());
      await().atMost(Duration.ofSeconds(30)).until(() -> OUTAGE_INFO.matcher(relay.log()).find());
      String log = relay.log();
      assertThat(OUTAGE_WARN.matcher(log).results().count()).as(log).isEqualTo(1);
      assertThat(OUTAGE_INFO.matcher(log).results().count()).as(log).isEqualTo(1);
      assertThat(STACK_FRAME.matcher(log).find()).as(log).isFalse();
      relay.process().terminate();
      assertThat(relay.waitFor(Duration.ofSeconds(60))).as(relay.log()).isZero();
    }
  }

  private RelayProcess relay(String process) {
    Path config =
        RelaySettings.polling(db, bootstrap, name)
            .with("polling.workers", "2")
            .writeTo(dir.resolve(process + ".properties"));
    return RelayProcess.run(process, dir, config);
  }

  /** Stops the process while it holds a lease; returns how many rows were leased then. */
  private long pauseWhileItHoldsALease(RelayProcess p) {
    long[] leased = new long[1];
    await()
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(5))
        .until(
            () -> {
              if (count("status = 'PROCESSING'") == 0) {
                return false;
              }
              p.process().pause();
              // A finish the process sent just before it stopped may still commit: the lease
              // counts only once the leased rows stay leased.
              long seen = count("status = 'PROCESSING'");
              try {
                await()
                    .during(Duration.ofMillis(300))
                    .atMost(Duration.ofSeconds(2))
                    .until(() -> count("status = 'PROCESSING'") == seen);
              } catch (ConditionTimeoutException e) {
                p.process().resume();
                return false;
              }
              leased[0] = seen;
              if (leased[0] > 0) {
                return true;
              }
              p.process().resume();
              return false;
            });
    LOG.info("{}: {} stopped holding {} events", name, p.process().name(), leased[0]);
    return leased[0];
  }

  private long count(String where) {
    return ((Number) db.adminQuery("SELECT COUNT(*) FROM outbox_events WHERE " + where))
        .longValue();
  }

  /**
   * Logs the takeover line and how long after the fault it came, for the failure table in
   * docs/polling.md.
   */
  private void logTakeover(RelayProcess p, long faultAt) {
    Matcher m = TAKEOVER.matcher(p.log());
    if (m.find()) {
      LOG.info("{}: {} (fault at {} ms since the epoch)", name, m.group(), faultAt);
    }
  }

  private void logLines(RelayProcess relay, long backAt) {
    LOG.info("{}: back at {} ms since the epoch", name, backAt);
    relay
        .log()
        .lines()
        .filter(l -> l.contains("reachable") || l.contains("published "))
        .forEach(l -> LOG.info("relay: {}", l));
  }
}
