package io.outboxrelay.relay.source.polling;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.outboxrelay.relay.source.SqlDialect;
import io.outboxrelay.testsupport.outbox.OutboxDatabase;
import io.outboxrelay.testsupport.outbox.RawOutboxInserts;
import io.outboxrelay.testsupport.outbox.TestEvent;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The lease keeper against a real MariaDB: a batch held longer than its lease keeps its rows (no
 * claim can take them over), and a renewal that finds rows under another claim's token marks the
 * batch lost and leaves those rows to their new owner.
 */
class LeaseKeeperIT {

  private static final Duration LEASE = Duration.ofSeconds(2);

  private OutboxDatabase db;
  private OutboxStore worker;
  private OutboxStore rival;
  private LeaseKeeper keeper;
  private Thread keeperThread;

  @BeforeEach
  void setUp() throws Exception {
    db = OutboxDatabase.forPolling();
    try (Connection c = db.app()) {
      for (int i = 1; i <= 10; i++) {
        RawOutboxInserts.writeTransaction(c, List.of(TestEvent.of("order", "o-" + i, 1)));
      }
    }
    worker = store();
    rival = store();
    keeper = new LeaseKeeper("test", LEASE, this::store);
    keeperThread = new Thread(keeper, "lease-keeper");
    keeperThread.start();
  }

  @AfterEach
  void tearDown() throws Exception {
    keeper.stop();
    keeperThread.interrupt();
    keeperThread.join(10_000);
    worker.closeQuietly();
    rival.closeQuietly();
    db.close();
  }

  private OutboxStore store() throws SQLException {
    Connection c = DriverManager.getConnection(db.jdbcUrl(), db.relayUser(), db.password());
    return Layouts.store(c, SqlDialect.MYSQL);
  }

  @Test
  void aBatchHeldForSeveralLeasesKeepsItsRows() throws Exception {
    long claimedAt = System.nanoTime();
    Claim claim = worker.claim(100, 10, LEASE, 5, true);
    assertThat(claim.events()).hasSize(10);
    LeaseKeeper.Lease lease = keeper.hold("worker-1", claim.token(), ids(claim), claimedAt);

    // Three leases long, a rival looking for expired leases finds none.
    await("no row taken from a renewed lease")
        .during(LEASE.multipliedBy(3))
        .atMost(LEASE.multipliedBy(3).plusSeconds(5))
        .pollInterval(Duration.ofMillis(200))
        .until(() -> rival.claim(100, 10, LEASE, 5, true).events().isEmpty());
    assertThat(lease.lost()).isFalse();
    assertThat(lease.expiresAt() - System.nanoTime()).isPositive();

    keeper.end(lease);
    OutboxStore.Finish finish = worker.finish(claim.token(), ids(claim), List.of());
    assertThat(finish.published()).hasSize(10);
    assertThat(finish.lost()).isEmpty();
  }

  @Test
  void aRenewalThatFindsRowsTakenOverMarksTheBatchLostAndLeavesThem() throws Exception {
    long claimedAt = System.nanoTime();
    Claim claim = worker.claim(100, 10, LEASE, 5, true);
    // The keeper does not run for this batch yet: its lease expires, and the rival takes it over.
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> !rival.claim(100, 10, LEASE, 5, true).events().isEmpty());
    LeaseKeeper.Lease lease = keeper.hold("worker-1", claim.token(), ids(claim), claimedAt);

    await().atMost(Duration.ofSeconds(10)).until(lease::lost);
    keeper.end(lease);
    OutboxStore.Finish finish = worker.finish(claim.token(), ids(claim), List.of());
    assertThat(finish.published()).isEmpty();
    assertThat(finish.lost()).hasSize(10);
    assertThat(count("status = 'PROCESSING'")).isEqualTo(10);
  }

  private static List<Long> ids(Claim claim) {
    return claim.events().stream().map(c -> c.event().id()).toList();
  }

  private long count(String where) {
    return ((Number) db.adminQuery("SELECT COUNT(*) FROM outbox_events WHERE " + where))
        .longValue();
  }
}
