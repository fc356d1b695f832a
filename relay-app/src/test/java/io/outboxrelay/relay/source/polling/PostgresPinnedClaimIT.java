package io.outboxrelay.relay.source.polling;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.outboxrelay.relay.source.SqlDialect;
import io.outboxrelay.testsupport.outbox.OutboxDatabase;
import io.outboxrelay.testsupport.stack.PostgresServer;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * PostgreSQL claims while a snapshot holds the xmin horizon back and a backlog waits: the claim's
 * window read costs the same after 5,000 and after 25,000 events published under the held snapshot
 * (it starts at the floor, walks the index in id order and stops after the window), every event is
 * claimed once and in aggregate order, and the lock of the chosen rows locks only those it takes; a
 * row that appears below the sweeps' floor goes once the {@link FloorCheck} finds it.
 */
class PostgresPinnedClaimIT {

  private static final Logger LOG = LoggerFactory.getLogger(PostgresPinnedClaimIT.class);
  private static final ObjectMapper JSON = new ObjectMapper();

  private static final int EVENTS = 40_000;
  private static final int AGGREGATES = 1_000;
  private static final int WINDOW = 5_000;
  private static final int BATCH = 500;

  /** A row of aggregate {@code later}, due in an hour: a sweep's first unsettled row. */
  private static final String A_ROW_DUE_IN_AN_HOUR =
      "INSERT INTO outbox_events (event_id, aggregate_type, aggregate_id, event_type, payload,"
          + " next_attempt_at) VALUES (gen_random_uuid(), 'order', 'later', 'Happened', '{}',"
          + " now() + interval '1 hour')";

  /** An insert of one row of an aggregate, due now. */
  private static String oneRow(String aggregate) {
    return "INSERT INTO outbox_events (event_id, aggregate_type, aggregate_id, event_type, payload)"
        + " VALUES (gen_random_uuid(), 'order', '"
        + aggregate
        + "', 'Happened', '{}')";
  }

  /**
   * An insert of rows of aggregates {@code <prefix>-1} to {@code <prefix>-100}, in order, due now.
   */
  private static String hundredRows(String prefix) {
    return "INSERT INTO outbox_events (event_id, aggregate_type, aggregate_id, event_type, payload)"
        + " SELECT gen_random_uuid(), 'order', '"
        + prefix
        + "-' || g, 'Happened', '{}' FROM generate_series(1, 100) g ORDER BY g";
  }

  /**
   * A server of the class's own, so that what the buffer counts measure is this class's doing only.
   * (When the sweeps' floor waited for every transaction with an id on the server, the other test
   * classes on the machine's PostgreSQL held it in about one full run of ten.)
   */
  private static PostgresServer server;

  @BeforeAll
  static void startServer() {
    server = PostgresServer.builder().setting("max_prepared_transactions", "4").start();
  }

  @AfterAll
  static void stopServer() {
    if (server != null) {
      server.close();
    }
  }

  @Test
  void claimUnderAHeldSnapshotReadsAsManyBuffersAfter25000EventsAsAfter5000() throws Exception {
    try (OutboxDatabase db = OutboxDatabase.on(server)) {
      db.admin(
          "INSERT INTO outbox_events (event_id, aggregate_type, aggregate_id, event_type, payload)"
              + " SELECT gen_random_uuid(), 'order', 'a-' || (g % "
              + AGGREGATES
              + "), 'Happened', jsonb_build_object('g', g) FROM generate_series(1, "
              + EVENTS
              + ") g ORDER BY g",
          "ANALYZE outbox_events");
      try (Connection pin = db.app();
          Connection c = relayConnection(db)) {
        pin.setAutoCommit(false);
        pin.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
        long seen = count(pin);
        OutboxStore store = Layouts.store(c, SqlDialect.POSTGRESQL);
        Map<String, Long> lastPerAggregate = new HashMap<>();
        List<Long> published = new ArrayList<>();
        long early = -1;
        long late = -1;
        int claims = 0;
        // The floor rises once the table's writers when a sweep started have ended: claim on
        // until it has, for a while.
        long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
        while (published.size() < 25_000
            || (store.floor() <= 20_000 && System.nanoTime() - deadline < 0)) {
          assertThat(++claims).as("claims").isLessThan(5_000);
          Claim claim = store.claim(WINDOW, BATCH, Duration.ofSeconds(30), 5, true);
          List<Long> ids = new ArrayList<>();
          for (ClaimedEvent e : claim.events()) {
            long id = e.event().id();
            String aggregate = e.event().aggregateId();
            Long previous = lastPerAggregate.put(aggregate, id);
            assertThat(previous == null || previous < id)
                .as("event %d after %d of %s", id, previous, aggregate)
                .isTrue();
            ids.add(id);
          }
          if (!ids.isEmpty()) {
            assertThat(store.finish(claim.token(), ids, List.of()).lost()).isEmpty();
            published.addAll(ids);
          } else {
            // Everything published, waiting for the floor only: it moves up to a sweep's first
            // unsettled row, so give the sweeps one.
            db.admin(oneRow("a-0"));
            Thread.sleep(50);
          }
          if (early < 0 && published.size() >= 5_000) {
            early = windowBuffers(c, store, store.floor());
          }
        }
        late = windowBuffers(c, store, store.floor());
        long fromFirstRow = windowBuffers(c, store, 0);
        LOG.info(
            "{} claims; window read from the floor {}: {} buffers after 5,000 events, {} after {};"
                + " from the first row: {}",
            claims,
            store.floor(),
            early,
            late,
            published.size(),
            fromFirstRow);
        assertThat(published).doesNotHaveDuplicates();
        assertThat(count(pin)).as("the snapshot held").isEqualTo(seen);
        assertThat(store.floor()).isGreaterThan(20_000);
        // Flat: the same window, whatever was published under the snapshot before it.
        assertThat(late).isLessThan(2 * early + 200);
        // And the held snapshot is real: from the first row the read walks every dead version.
        assertThat(fromFirstRow).isGreaterThan(4 * late);
        pin.rollback();
      }
    }
  }

  @Test
  void lockOfTheChosenRowsLocksOnlyTheRowsItTakes() throws Exception {
    try (OutboxDatabase db = OutboxDatabase.on(server)) {
      db.admin(
          "INSERT INTO outbox_events (event_id, aggregate_type, aggregate_id, event_type, payload,"
              + " status, next_attempt_at, processing_until) VALUES"
              + " (gen_random_uuid(), 'order', 'due', 'Happened', '{}', 'PENDING',"
              + " clock_timestamp(), NULL),"
              + " (gen_random_uuid(), 'order', 'retry', 'Happened', '{}', 'PENDING',"
              + " clock_timestamp() + interval '1 hour', NULL),"
              + " (gen_random_uuid(), 'order', 'leased', 'Happened', '{}', 'PROCESSING',"
              + " clock_timestamp(), clock_timestamp() + interval '1 hour'),"
              + " (gen_random_uuid(), 'order', 'expired', 'Happened', '{}', 'PROCESSING',"
              + " clock_timestamp(), clock_timestamp() - interval '1 second'),"
              + " (gen_random_uuid(), 'order', 'done', 'Happened', '{}', 'PUBLISHED',"
              + " clock_timestamp(), NULL),"
              + " (gen_random_uuid(), 'order', 'dead', 'Happened', '{}', 'DEAD',"
              + " clock_timestamp(), NULL),"
              + " (gen_random_uuid(), 'order', 'dead', 'Happened', '{}', 'PENDING',"
              + " clock_timestamp(), NULL)");
      try (Connection c = relayConnection(db);
          Connection other = relayConnection(db)) {
        OutboxStore store = Layouts.store(c, SqlDialect.POSTGRESQL); // DEAD blocks its aggregate
        List<Long> all = List.of(1L, 2L, 3L, 4L, 5L, 6L, 7L);
        List<Long> taken = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement(store.takeChosenSql())) {
          ps.setInt(SqlDialect.POSTGRESQL.bindIds(c, ps, 1, all), 10);
          try (ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
              taken.add(rs.getLong(1));
            }
          }
        }
        // The due pending row and the expired lease; not the retry, the live lease, the
        // published row, the DEAD row, nor the pending row behind the DEAD one.
        assertThat(taken).containsExactly(1L, 4L);
        other.setAutoCommit(false);
        List<Long> free = new ArrayList<>();
        try (PreparedStatement ps =
            other.prepareStatement(
                "SELECT id FROM outbox_events WHERE id = ANY(?) ORDER BY id"
                    + " FOR UPDATE SKIP LOCKED")) {
          SqlDialect.POSTGRESQL.bindIds(other, ps, 1, all);
          try (ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
              free.add(rs.getLong(1));
            }
          }
        }
        other.rollback();
        c.rollback();
        assertThat(free).containsExactly(2L, 3L, 5L, 6L, 7L);
      }
    }
  }

  @Test
  void aRequeuedDeadEventGoesBeforeTheLaterEventsOfItsAggregate() throws Exception {
    try (OutboxDatabase db = OutboxDatabase.on(server)) {
      db.admin(
          "INSERT INTO outbox_events (event_id, aggregate_type, aggregate_id, event_type, payload,"
              + " status) VALUES (gen_random_uuid(), 'order', 'x', 'Happened', '{}', 'DEAD')",
          hundredRows("a"),
          oneRow("x"));
      try (Connection c = relayConnection(db)) {
        OutboxStore store = Layouts.store(c, SqlDialect.POSTGRESQL); // DEAD blocks its aggregate
        List<Long> claimed = claimAll(store);
        assertThat(claimed).hasSize(100).doesNotContain(1L, 102L);
        // Every event but the DEAD one and the one behind it is published; the sweeps' floor
        // stays below the DEAD row, where a requeue puts it back.
        db.admin("UPDATE outbox_events SET status = 'PENDING' WHERE id = 1");
        assertThat(claimAll(store)).containsExactly(1L, 102L);
      }
    }
  }

  @Test
  void aRowThatAppearsBelowTheFloorGoesOnceTheFloorCheckFindsItAndKeepsItsAggregatesOrder()
      throws Exception {
    try (OutboxDatabase db = OutboxDatabase.on(server)) {
      rowsAboveAGap(db);
      try (Connection c = relayConnection(db)) {
        FloorCheck check = Layouts.floorCheck();
        OutboxStore store = Layouts.store(c, SqlDialect.POSTGRESQL, check);
        publishAllAndAwaitTheFloor(store);
        // An id allocated before the floor rose and committed after it (a sequence's cache in
        // another session): the sweeps start above it.
        insertBelowTheFloor(db);
        assertThat(claimAll(store)).as("before the check").isEmpty();
        check.check(store);
        assertThat(check.latest().lowest()).isEqualTo(500);
        db.admin(oneRow("late"));
        // The row below the floor goes first, alone; its aggregate's later row waits for it.
        Claim first = store.claim(WINDOW, BATCH, Duration.ofSeconds(30), 5, true);
        List<Long> firstIds = first.events().stream().map(e -> e.event().id()).toList();
        assertThat(firstIds).containsExactly(500L);
        store.finish(first.token(), firstIds, List.of());
        assertThat(claimAll(store)).containsExactly(3001L);
        // And the floor rises again: the sweeps do not start below the published rows for good.
        awaitFloor(store, 3_000);
        check.check(store);
        assertThat(check.latest().lowest()).isEqualTo(Long.MAX_VALUE);
      }
    }
  }

  @Test
  void whileTheFloorCheckIsStaleTheSweepsFindARowBelowTheFloorThemselves() throws Exception {
    try (OutboxDatabase db = OutboxDatabase.on(server)) {
      rowsAboveAGap(db);
      try (Connection c = relayConnection(db)) {
        // A check that never succeeds (its thread fails, or never started): stale at once, and
        // each sweep reads from the first row itself once every 3 s.
        FloorCheck check = Layouts.floorCheck(Duration.ofSeconds(3), Duration.ZERO);
        OutboxStore store = Layouts.store(c, SqlDialect.POSTGRESQL, check);
        publishAllAndAwaitTheFloor(store);
        insertBelowTheFloor(db);
        List<Long> found = new ArrayList<>();
        await()
            .atMost(Duration.ofSeconds(30))
            .until(
                () -> {
                  found.addAll(claimAll(store));
                  return found.contains(500L);
                });
        assertThat(found).containsExactly(500L);
        assertThat(check.latest()).as("no check ever ran").isNull();
      }
    }
  }

  @Test
  void writeTransactionsOfOtherTablesAndDatabasesDoNotHoldTheFloor() throws Exception {
    try (OutboxDatabase db = OutboxDatabase.on(server);
        OutboxDatabase other = OutboxDatabase.on(server)) {
      rowsAboveAGap(db);
      db.admin("CREATE TABLE side (x int)", "GRANT INSERT ON side TO " + db.relayUser());
      try (Connection c = relayConnection(db);
          Connection sameDatabase = relayConnection(db);
          Connection otherDatabase = other.app()) {
        // Two transactions with an id, held open: one wrote another table of the outbox's
        // database, one another database's outbox table.
        sameDatabase.setAutoCommit(false);
        try (Statement st = sameDatabase.createStatement()) {
          st.execute("INSERT INTO side VALUES (1)");
        }
        try (Statement st = otherDatabase.createStatement()) {
          st.execute(oneRow("x"));
        }
        // A transaction that took its id after theirs and ended: the sweeps' snapshots list
        // theirs as running from here on.
        db.admin("INSERT INTO side VALUES (2)");
        OutboxStore store = Layouts.store(c, SqlDialect.POSTGRESQL);
        // Before, each of them held the floor where it was until it ended.
        publishAllAndAwaitTheFloor(store);
        assertThat(store.floor()).isGreaterThanOrEqualTo(1_000);
        sameDatabase.rollback();
        otherDatabase.rollback();
      }
    }
  }

  @Test
  void aTransactionWritingTheOutboxHoldsTheFloorBelowItsRowUntilItCommits() throws Exception {
    try (OutboxDatabase db = OutboxDatabase.on(server)) {
      rowsAboveAGap(db);
      db.admin("CREATE TABLE side (x int)", "GRANT INSERT ON side TO PUBLIC");
      try (Connection c = relayConnection(db);
          Connection earlier = db.app();
          Connection writer = db.app()) {
        OutboxStore store = Layouts.store(c, SqlDialect.POSTGRESQL); // the check never runs
        publishAllAndAwaitTheFloor(store);
        // A transaction takes its id first (another table), then the writer takes a later one
        // with row 3,001, uncommitted. The first then commits rows 3,002 to 3,101, and 3,102 due
        // in an hour (the sweeps' first unsettled row, where the floor would go). No transaction
        // after the writer's has ended, so a snapshot's list of running ones stops before it.
        try (Statement st = earlier.createStatement()) {
          st.execute("INSERT INTO side VALUES (1)");
        }
        try (Statement st = writer.createStatement()) {
          st.execute(oneRow("slow"));
        }
        try (Statement st = earlier.createStatement()) {
          st.execute(hundredRows("b"));
          st.execute(A_ROW_DUE_IN_AN_HOUR);
        }
        earlier.commit();
        assertThat(claimAll(store)).hasSize(100).allMatch(id -> id > 3_001 && id < 3_102);
        sweepsKeepTheFloorBelow(store, 3_001);
        writer.commit();
        // At the next sweep, not a minute later by the check.
        assertThat(claimAll(store)).containsExactly(3_001L);
      }
    }
  }

  @Test
  void aPreparedTransactionThatWroteTheOutboxHoldsTheFloorUntilItIsCommitted() throws Exception {
    try (OutboxDatabase db = OutboxDatabase.on(server)) {
      rowsAboveAGap(db);
      try (Connection c = relayConnection(db);
          Connection writer = db.app()) {
        OutboxStore store = Layouts.store(c, SqlDialect.POSTGRESQL); // the check never runs
        publishAllAndAwaitTheFloor(store);
        // Row 3,001 in a transaction prepared for a two-phase commit: its locks and id go to a
        // holder of their own, with no session.
        String gid = "outbox-" + db.name();
        try (Statement st = writer.createStatement()) {
          st.execute(oneRow("xa"));
          st.execute("PREPARE TRANSACTION '" + gid + "'");
        }
        try {
          db.admin(hundredRows("b"), A_ROW_DUE_IN_AN_HOUR);
          assertThat(claimAll(store)).hasSize(100).allMatch(id -> id > 3_001 && id < 3_102);
          sweepsKeepTheFloorBelow(store, 3_001);
          db.admin("COMMIT PREPARED '" + gid + "'");
          gid = null;
          assertThat(claimAll(store)).containsExactly(3_001L);
        } finally {
          if (gid != null) {
            db.admin("ROLLBACK PREPARED '" + gid + "'");
          }
        }
      }
    }
  }

  /**
   * Sweeps with nothing to take, each past the interval between reads of the table's writers; the
   * floor stays below {@code row}, whose transaction has not committed.
   */
  private static void sweepsKeepTheFloorBelow(OutboxStore store, long row) throws Exception {
    for (int i = 0; i < 5; i++) {
      Thread.sleep(ClaimSweep.WRITERS_INTERVAL.toMillis() + 20);
      assertThat(store.claim(WINDOW, BATCH, Duration.ofSeconds(30), 5, true).events()).isEmpty();
    }
    assertThat(store.floor()).as("the floor while row %d is not committed", row).isLessThan(row);
  }

  /** Rows 1,001 to 3,000 unsettled, in 100 aggregates; rows 1 to 1,000 gone. */
  private static void rowsAboveAGap(OutboxDatabase db) throws Exception {
    db.admin(
        "INSERT INTO outbox_events (event_id, aggregate_type, aggregate_id, event_type, payload)"
            + " SELECT gen_random_uuid(), 'order', 'a-' || (g % 100), 'Happened', '{}'"
            + " FROM generate_series(1, 3000) g ORDER BY g",
        "DELETE FROM outbox_events WHERE id <= 1000");
  }

  /**
   * Publishes the rows of {@link #rowsAboveAGap} and waits until the floor has risen past 1,000.
   */
  private static void publishAllAndAwaitTheFloor(OutboxStore store) throws Exception {
    assertThat(claimAll(store)).hasSize(2_000);
    awaitFloor(store, 1_000);
  }

  /** Row 500 of aggregate {@code late}, committed after the floor rose past it. */
  private static void insertBelowTheFloor(OutboxDatabase db) throws Exception {
    db.admin(
        "INSERT INTO outbox_events (id, event_id, aggregate_type, aggregate_id, event_type,"
            + " payload) OVERRIDING SYSTEM VALUE VALUES (500, gen_random_uuid(), 'order',"
            + " 'late', 'Happened', '{}')");
  }

  /**
   * Claims (finding nothing) until the floor is at least {@code min}: it rises once the table's
   * writers when a sweep started have ended.
   */
  private static void awaitFloor(OutboxStore store, long min) {
    await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () -> {
              assertThat(store.claim(WINDOW, BATCH, Duration.ofSeconds(30), 5, true).events())
                  .isEmpty();
              return store.floor() >= min;
            });
  }

  /** Claims and publishes until a claim finds nothing twice in a row; the ids in claim order. */
  private static List<Long> claimAll(OutboxStore store) throws Exception {
    List<Long> claimed = new ArrayList<>();
    int empty = 0;
    for (int i = 0; i < 50 && empty < 2; i++) {
      Claim claim = store.claim(WINDOW, BATCH, Duration.ofSeconds(30), 5, true);
      List<Long> ids = claim.events().stream().map(e -> e.event().id()).toList();
      empty = ids.isEmpty() ? empty + 1 : 0;
      if (!ids.isEmpty()) {
        store.finish(claim.token(), ids, List.of());
        claimed.addAll(ids);
      }
    }
    return claimed;
  }

  /** A connection as the relay's user, auto-commit on. */
  private static Connection relayConnection(OutboxDatabase db) throws Exception {
    return DriverManager.getConnection(db.jdbcUrl(), db.relayUser(), db.password());
  }

  private static long count(Connection c) throws Exception {
    try (Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT count(*) FROM outbox_events")) {
      rs.next();
      return rs.getLong(1);
    }
  }

  /**
   * The shared buffers (hit and read) of one window read from {@code from}, by {@code EXPLAIN
   * (ANALYZE, BUFFERS)} on the store's connection (its session settings apply); checks the plan
   * walks {@code (status, id)} in order with neither a bitmap scan nor a sort.
   */
  private static long windowBuffers(Connection c, OutboxStore store, long from) throws Exception {
    String sql = store.unsettledWindowSql();
    for (long v : new long[] {from, WINDOW, from, WINDOW, from, WINDOW, WINDOW}) {
      sql = sql.replaceFirst("\\?", Long.toString(v));
    }
    JsonNode plan;
    try (Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) " + sql)) {
      rs.next();
      plan = JSON.readTree(rs.getString(1)).get(0).get("Plan");
    }
    c.rollback();
    LOG.info("window read from {}: {}", from, plan);
    List<String> nodes = new ArrayList<>();
    collectNodeTypes(plan, nodes);
    assertThat(nodes)
        .contains("Merge Append", "Index Scan")
        .doesNotContain("Bitmap Heap Scan", "Sort", "Seq Scan");
    assertThat(plan.toString()).contains("ix_outbox_events_status_id");
    return plan.get("Shared Hit Blocks").asLong() + plan.get("Shared Read Blocks").asLong();
  }

  private static void collectNodeTypes(JsonNode node, List<String> into) {
    if (node.isObject() && node.has("Node Type")) {
      into.add(node.get("Node Type").asText());
    }
    node.forEach(child -> collectNodeTypes(child, into));
  }
}
