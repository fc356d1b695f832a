package io.outboxrelay.relay.source.polling;

import static org.assertj.core.api.Assertions.assertThat;

import io.outboxrelay.relay.Relay;
import io.outboxrelay.relay.testing.Configs;
import io.outboxrelay.testsupport.outbox.OutboxDatabase;
import io.outboxrelay.testsupport.outbox.RelaySettings;
import io.outboxrelay.testsupport.stack.LocalStack;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An idle table costs about one claim per {@code polling.interval} and worker: no tight loop, and
 * no worker asleep for good. Counted by the private MariaDB's per-user statistics of the relay's
 * user.
 */
class IdlePollingIT {

  private static final Logger LOG = LoggerFactory.getLogger(IdlePollingIT.class);
  private static final int WORKERS = 4;
  private static final long WINDOW_MS = 3_000;

  @Test
  void anIdleRelayClaimsAboutOncePerIntervalAndWorker() throws Exception {
    try (OutboxDatabase db = OutboxDatabase.forPolling()) {
      db.admin("SET GLOBAL userstat = 1");
      try (Relay relay =
          Relay.create(
              RelaySettings.polling(db, LocalStack.shared().kafka().bootstrapServers(), "idle")
                  .with("polling.interval", "100ms")
                  .with("polling.workers", String.valueOf(WORKERS))
                  .parsedBy(Configs::parse))) {
        relay.start();
        Thread.sleep(1_000); // past the short pauses after the first empty claims
        long before = selects(db);
        Thread.sleep(WINDOW_MS);
        long during = selects(db) - before;

        // Each claim is two SELECTs (the window's end, then the claim); each worker also looks
        // for expired leases once a second: 4 x (30 x 2 + 3) = 252, give or take the jitter.
        long expected = WORKERS * ((WINDOW_MS / 100) * 2 + WINDOW_MS / 1_000);
        LOG.info("idle relay: {} SELECTs in {} ms, about {} expected", during, WINDOW_MS, expected);
        assertThat(during).isBetween(expected / 2, expected * 2);
      } finally {
        db.admin("SET GLOBAL userstat = 0");
      }
    }
  }

  private static long selects(OutboxDatabase db) {
    Object n =
        db.adminQuery(
            "SELECT SELECT_COMMANDS FROM information_schema.USER_STATISTICS WHERE USER = '"
                + db.relayUser()
                + "'");
    return n == null ? 0 : ((Number) n).longValue();
  }
}
