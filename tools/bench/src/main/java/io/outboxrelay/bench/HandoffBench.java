package io.outboxrelay.bench;

import io.outboxrelay.testsupport.outbox.Ledger;
import io.outboxrelay.testsupport.outbox.LongTransactionWriter;
import io.outboxrelay.testsupport.outbox.RelayProcess;
import io.outboxrelay.testsupport.outbox.RelaySettings;
import io.outboxrelay.testsupport.stack.ConsumedRecord;
import java.time.Duration;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The hand-offs under an application that keeps transactions open for seconds: four lanes of
 * overlapping transactions, each open 1.5 to 8 s, at a steady rate. CDC runs, is stopped, the table
 * is handed to polling, polling runs, is stopped, the table is handed back to CDC, and CDC runs
 * again. Reports how long each hand-off command took (a command still running after {@link
 * #LONGEST} is killed and reported as not finished) and what the application's INSERTs waited
 * during each ({@link InsertProbe}: an autocommit INSERT every 200 ms while one application
 * transaction holds an inserted outbox row open {@link #HELD} across the hand-off), and checks
 * every committed event by id. Not thread-safe.
 */
final class HandoffBench {

  private static final Logger LOG = LoggerFactory.getLogger(HandoffBench.class);

  /** How long a hand-off may run before the bench gives up on it. */
  static final Duration LONGEST = Duration.ofSeconds(180);

  /** How long the application transaction open across each hand-off stays open. */
  static final Duration HELD = Duration.ofSeconds(20);

  private final BenchEnv env;

  HandoffBench(BenchEnv env) {
    this.env = env;
  }

  void run(ResultTable table, int rate, Duration load) throws Exception {
    String name = "bench-handoff-" + Long.toHexString(System.nanoTime() & 0xffff);
    try (FaultStage stage =
        FaultStage.open(
            env,
            name,
            db ->
                RelaySettings.cdc(db, env.bootstrapServers(), name)
                    .with("polling.interval", "50ms")
                    .with("relay.stats.interval", "10s"))) {
      grantHandoff(stage);
      String config = stage.config().toString();
      stage.startRelay(1).awaitReady();
      String toPolling;
      String toCdc;
      String insertsToPolling;
      String insertsToCdc;
      try (LongTransactionWriter app =
          LongTransactionWriter.start(
              stage.db(),
              stage.ledger(),
              FaultStage.AGGREGATE_TYPE,
              4,
              rate,
              Duration.ofMillis(1500),
              Duration.ofSeconds(8))) {
        Thread.sleep(load.toMillis());
        stage.stopRelays();
        try (InsertProbe probe =
            InsertProbe.start(stage.db(), stage.ledger(), "probe-polling", HELD.toMillis())) {
          toPolling = handoff(name + "-to-polling", config, "polling");
          insertsToPolling = probe.stop();
        }
        RelayProcess polling =
            RelayProcess.start(
                name + "-polling",
                env.workDir(),
                env.relayEnv(),
                "run",
                "--config",
                config,
                "--mode",
                "polling");
        polling.awaitReady();
        Thread.sleep(load.toMillis());
        polling.close();
        try (InsertProbe probe =
            InsertProbe.start(stage.db(), stage.ledger(), "probe-cdc", HELD.toMillis())) {
          toCdc = handoff(name + "-to-cdc", config, "cdc");
          stage.startRelay(2).awaitReady(); // its first start publishes what polling left
          insertsToCdc = probe.stop();
        }
        Thread.sleep(load.toMillis());
        app.stop(Duration.ofSeconds(60));
      }
      stage.reader().readUntil(stage.ledger()::allArrived, Duration.ofSeconds(120));
      List<ConsumedRecord> records =
          stage.reader().readAll(Duration.ofSeconds(3), Duration.ofSeconds(120));
      Ledger.Result result = stage.ledger().check(records);
      LOG.info("{}: to polling {}, to CDC {}; {}", name, toPolling, toCdc, result.summary());
      String check =
          String.format(
              "%,d events: %d lost, %d duplicates, %d out of order",
              result.expected(), result.lost(), result.duplicates(), result.outOfOrder());
      String writer =
          String.format(" at %,d events/s, 4 transactions open at a time for 1.5-8 s each", rate);
      table.add("hand-off to polling" + writer, toPolling, "<= 30 s", check);
      table.add("hand-off to CDC" + writer, toCdc, "<= 30 s", check);
      String held =
          String.format(
              ", autocommit INSERT every %d ms, one transaction open %d s across it",
              InsertProbe.PACE_MILLIS, HELD.toSeconds());
      table.add(
          "application INSERT during hand-off to polling" + held,
          insertsToPolling,
          "max < 1 s",
          check);
      table.add(
          "application INSERT during hand-off to CDC and the relay's first start" + held,
          insertsToCdc,
          "max < 1 s",
          check);
    }
  }

  /**
   * What the hand-off needs of the relay's user (config/mysql/relay-grants.sql), and what the
   * hand-offs of 0.1.0 builds before the lock-free one needed as well ({@code LOCK TABLES}, {@code
   * INSERT} and {@code DELETE} on the outbox table, {@code PROCESS}), so that one bench run can
   * measure an earlier build ({@code OUTBOX_RELAY_DIST}) beside this one. The tests check the
   * smaller set.
   */
  private static void grantHandoff(FaultStage stage) {
    String user = "'" + stage.db().relayUser() + "'@'127.0.0.1'";
    String db = stage.db().name();
    stage
        .db()
        .admin(
            "GRANT SELECT, UPDATE, INSERT, DELETE ON " + db + ".outbox_events TO " + user,
            "GRANT INSERT, UPDATE ON " + db + ".outbox_relay_handoffs TO " + user,
            "GRANT LOCK TABLES ON " + db + ".* TO " + user,
            "GRANT PROCESS ON *.* TO " + user);
  }

  /** Runs a hand-off and says how long it took, or that it did not finish. */
  private String handoff(String process, String config, String to) {
    RelayProcess p =
        RelayProcess.start(
            process, env.workDir(), env.relayEnv(), "handoff", "--config", config, "--to", to);
    long started = System.nanoTime();
    int exit;
    try {
      exit = p.waitFor(LONGEST);
    } catch (io.outboxrelay.testsupport.stack.LocalStackException stillRunning) {
      p.process().kill();
      return String.format("did not finish within %d s (killed)", LONGEST.toSeconds());
    }
    double seconds = (System.nanoTime() - started) / 1e9;
    return exit == 0
        ? String.format("%.1f s", seconds)
        : String.format("failed with exit %d after %.1f s", exit, seconds);
  }
}
