package io.outboxrelay.relay.source.polling;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.outboxrelay.relay.source.SqlDialect;
import io.outboxrelay.testsupport.outbox.OutboxDatabase;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The claim floor on the machine's PostgreSQL: it passes settled rows, never a row whose
 * transaction is still open or a DEAD row that blocks its aggregate, and under a held-back xmin
 * horizon the claims that start at it read a fraction of what claims from the first row read,
 * returning the same rows.
 */
class ClaimFloorIT {

  private static final Logger LOG = LoggerFactory.getLogger(ClaimFloorIT.class);
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String TABLE = "outbox_events";

  /** A clock for the floor that moves a second at each step, so every step reads. */
  private final AtomicLong nanos = new AtomicLong();

  @Test
  void passesPublishedRowsButNeverARowWhoseTransactionIsStillOpen() throws Exception {
    try (OutboxDatabase db = OutboxDatabase.postgres();
        Connection relay = relayConnection(db);
        Connection app = db.app()) {
      ClaimFloor floor = floor(true);
      insert(db, 100);
      publishAll(db);
      long first = maxId(db);
      awaitFloor(floor, relay, first + 1);

      app.setAutoCommit(false);
      long late = insertReturningId(app);
      insert(db, 10);
      publishAll(db); // the open transaction's row is not visible to it: it stays PENDING
      for (int i = 0; i < 5; i++) {
        step(floor, relay);
        assertThat(floor.value())
            .as("floor while row %d is uncommitted", late)
            .isLessThan(late + 1);
      }
      app.commit();
      awaitFloor(floor, relay, late); // its row is PENDING now: the floor stops at it
      for (int i = 0; i < 3; i++) {
        step(floor, relay);
        assertThat(floor.value()).isEqualTo(late);
      }
      publishAll(db);
      awaitFloor(floor, relay, maxId(db) + 1);

      nanos.addAndGet(ClaimFloor.RECHECK.toNanos());
      step(floor, relay);
      assertThat(floor.value()).as("after the recheck interval").isZero();
    }
  }

  @Test
  void aDeadRowHoldsTheFloorOnlyWhereItBlocksItsAggregate() throws Exception {
    try (OutboxDatabase db = OutboxDatabase.postgres();
        Connection relay = relayConnection(db)) {
      insert(db, 20);
      publishAll(db);
      long dead = maxId(db) - 10;
      db.admin("UPDATE " + TABLE + " SET status = 'DEAD' WHERE id = " + dead);

      ClaimFloor blocking = floor(true);
      awaitFloor(blocking, relay, dead);
      for (int i = 0; i < 3; i++) {
        step(blocking, relay);
        assertThat(blocking.value()).isEqualTo(dead);
      }
      ClaimFloor passing = floor(false);
      awaitFloor(passing, relay, maxId(db) + 1);
    }
  }

  @Test
  void underAPinnedXminClaimsFromTheFloorReadAFractionAndReturnTheSameRows() throws Exception {
    try (OutboxDatabase db = OutboxDatabase.postgres();
        Connection relay = relayConnection(db);
        Connection pin = relayConnection(db)) {
      // A REPEATABLE READ transaction that has read: its snapshot holds the xmin horizon back.
      pin.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
      try (Statement st = pin.createStatement();
          ResultSet rs = st.executeQuery("SELECT count(*) FROM " + TABLE)) {
        rs.next();
      }
      // 20,000 events claimed and published while it is open: three versions each.
      for (int batch = 0; batch < 40; batch++) {
        insert(db, 500);
        db.admin(
            "UPDATE "
                + TABLE
                + " SET status = 'PROCESSING', claim_token = gen_random_uuid(), processing_until ="
                + " clock_timestamp() + interval '8 seconds', attempts = 1"
                + " WHERE status = 'PENDING'",
            "UPDATE "
                + TABLE
                + " SET status = 'PUBLISHED', published_at = clock_timestamp(), claim_token ="
                + " NULL, processing_until = clock_timestamp() WHERE status = 'PROCESSING'");
      }
      insert(db, 500);
      db.admin("ANALYZE " + TABLE);

      ClaimFloor floor = floor(true);
      long firstPending = maxId(db) - 499;
      awaitFloor(floor, relay, firstPending);
      OutboxStore store = Layouts.store(relay, SqlDialect.POSTGRESQL);

      long[] fromStart = pendingArgs(store, 0, 0);
      long[] fromFloor = pendingArgs(store, floor.sweepStart(), floor.value());
      assertThat(claimIds(relay, store, fromFloor)).isEqualTo(claimIds(relay, store, fromStart));
      assertThat(claimIds(relay, store, fromFloor)).hasSize(100);

      long startBlocks = blocks(relay, ClaimQueryPlanIT.bind(store.pendingClaimSql(), fromStart));
      long floorBlocks = blocks(relay, ClaimQueryPlanIT.bind(store.pendingClaimSql(), fromFloor));
      long expiredStart =
          blocks(relay, ClaimQueryPlanIT.bind(store.expiredClaimSql(), expiredArgs(store, 0)));
      long expiredFloor =
          blocks(
              relay,
              ClaimQueryPlanIT.bind(store.expiredClaimSql(), expiredArgs(store, floor.value())));
      long windowStart = blocks(relay, ClaimQueryPlanIT.bind(store.windowEndSql(), 0, 4999));
      long windowFloor =
          blocks(relay, ClaimQueryPlanIT.bind(store.windowEndSql(), floor.sweepStart(), 4999));
      LOG.info(
          "buffers read under a pinned xmin, from the first row / from the floor: pending claim"
              + " {} / {}, expired-lease claim {} / {}, window end {} / {}",
          startBlocks,
          floorBlocks,
          expiredStart,
          expiredFloor,
          windowStart,
          windowFloor);
      // A prepared statement's generic plan (pgjdbc prepares on the server from the fifth run)
      // probes the aggregate index per candidate: it does not read every leased row per candidate.
      String generic = genericPlan(relay, store.pendingClaimSql(), fromFloor);
      assertThat(generic).doesNotContain("Anti Join");
      assertThat(generic.split("ix_outbox_events_status_id", -1)).hasSize(2); // the window's scan
      assertThat(generic.split("ix_outbox_events_aggregate", -1)).hasSize(4); // three probes
      assertThat(floorBlocks * 5).isLessThan(startBlocks);
      assertThat(expiredFloor * 5).isLessThan(expiredStart);
      assertThat(windowFloor * 5).isLessThan(windowStart);
      pin.rollback();
    }
  }

  @Test
  void aRowCommittedAfterLaterRowsIsClaimedBeforeTheRecheck() throws Exception {
    try (OutboxDatabase db = OutboxDatabase.postgres();
        Connection relay = relayConnection(db);
        Connection app = db.app()) {
      OutboxStore store = Layouts.store(relay, SqlDialect.POSTGRESQL);
      insert(db, 50);
      app.setAutoCommit(false);
      long late = insertReturningId(app);
      insert(db, 50);
      List<Long> claimed = new ArrayList<>();
      // Claim and publish everything visible, long enough for the floor to try to move past it.
      long until = System.nanoTime() + Duration.ofSeconds(3).toNanos();
      while (System.nanoTime() < until) {
        claimAndPublish(store, claimed);
        Thread.sleep(ClaimFloor.STEP.toMillis() / 2);
      }
      assertThat(claimed).hasSize(100).doesNotContain(late);
      assertThat(store.floor()).isLessThanOrEqualTo(late);

      app.commit();
      long committed = System.nanoTime();
      await()
          .atMost(Duration.ofSeconds(30))
          .pollInterval(Duration.ofMillis(200))
          .until(
              () -> {
                claimAndPublish(store, claimed);
                return claimed.contains(late);
              });
      LOG.info(
          "row {} claimed {} ms after its commit",
          late,
          (System.nanoTime() - committed) / 1_000_000);
      assertThat(claimed).hasSize(101).doesNotHaveDuplicates();
      assertThat(db.adminQuery("SELECT count(*) FROM " + TABLE + " WHERE status <> 'PUBLISHED'"))
          .hasToString("0");
    }
  }

  // --- helpers ---------------------------------------------------------------------------------

  private ClaimFloor floor(boolean deadHolds) {
    return ClaimFloor.of(SqlDialect.POSTGRESQL, TABLE, "id", deadHolds, nanos::get);
  }

  private void step(ClaimFloor floor, Connection relay) throws Exception {
    nanos.addAndGet(Duration.ofSeconds(1).toNanos());
    floor.sweepEnded(relay);
    relay.commit();
  }

  /** Steps until the floor is {@code expected}: other databases' transactions may delay it. */
  private void awaitFloor(ClaimFloor floor, Connection relay, long expected) {
    await()
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(50))
        .until(
            () -> {
              step(floor, relay);
              return floor.value() == expected;
            });
  }

  private static void claimAndPublish(OutboxStore store, List<Long> claimed) throws Exception {
    Claim claim = store.claim(5000, 500, Duration.ofSeconds(30), 10, true);
    List<Long> ids = claim.events().stream().map(c -> c.event().id()).toList();
    claimed.addAll(ids);
    if (!ids.isEmpty()) {
      store.finish(claim.token(), ids, List.of());
    }
  }

  private static Connection relayConnection(OutboxDatabase db) throws Exception {
    Connection c = DriverManager.getConnection(db.jdbcUrl(), db.relayUser(), db.password());
    c.setAutoCommit(false);
    return c;
  }

  private static void insert(OutboxDatabase db, int rows) {
    db.admin(
        "INSERT INTO "
            + TABLE
            + " (event_id, aggregate_type, aggregate_id, event_type, payload)"
            + " SELECT gen_random_uuid(), 'order', 'a-' || (g % 100), 'Happened', '{}'"
            + " FROM generate_series(1, "
            + rows
            + ") g");
  }

  private static long insertReturningId(Connection app) throws Exception {
    try (Statement st = app.createStatement();
        ResultSet rs =
            st.executeQuery(
                "INSERT INTO "
                    + TABLE
                    + " (event_id, aggregate_type, aggregate_id, event_type, payload) VALUES"
                    + " (gen_random_uuid(), 'order', 'late', 'Happened', '{}') RETURNING id")) {
      rs.next();
      return rs.getLong(1);
    }
  }

  private static void publishAll(OutboxDatabase db) {
    db.admin(
        "UPDATE "
            + TABLE
            + " SET status = 'PUBLISHED', published_at = clock_timestamp() WHERE status ="
            + " 'PENDING'");
  }

  private static long maxId(OutboxDatabase db) {
    return ((Number) db.adminQuery("SELECT max(id) FROM " + TABLE)).longValue();
  }

  /** The pending claim's parameters over the whole table: cursor, window end, floors, limit. */
  private static long[] pendingArgs(OutboxStore store, long cursor, long floor) {
    long[] args = new long[3 + store.pendingFloors()];
    args[0] = cursor;
    args[1] = Long.MAX_VALUE;
    for (int i = 0; i < store.pendingFloors(); i++) {
      args[2 + i] = floor;
    }
    args[args.length - 1] = 100;
    return args;
  }

  private static long[] expiredArgs(OutboxStore store, long floor) {
    long[] args = new long[store.expiredFloors() + 1];
    for (int i = 0; i < store.expiredFloors(); i++) {
      args[i] = floor;
    }
    args[args.length - 1] = 100;
    return args;
  }

  /** The ids the pending claim returns with these parameters (the locks are rolled back). */
  private static List<Long> claimIds(Connection c, OutboxStore store, long[] args)
      throws Exception {
    List<Long> ids = new ArrayList<>();
    try (PreparedStatement ps = c.prepareStatement(store.pendingClaimSql())) {
      for (int i = 0; i < args.length; i++) {
        ps.setLong(i + 1, args[i]);
      }
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          ids.add(rs.getLong(1));
        }
      }
    }
    c.rollback();
    return ids;
  }

  /** The generic plan PostgreSQL would run for the statement prepared on the server, as JSON. */
  private static String genericPlan(Connection c, String sql, long[] args) throws Exception {
    StringBuilder numbered = new StringBuilder();
    int n = 0;
    for (char ch : sql.toCharArray()) {
      if (ch == '?') {
        numbered.append('$').append(++n);
      } else {
        numbered.append(ch);
      }
    }
    StringBuilder values = new StringBuilder();
    for (long a : args) {
      values.append(values.length() == 0 ? "" : ", ").append(a);
    }
    String plan;
    try (Statement st = c.createStatement()) {
      st.execute("SET plan_cache_mode = force_generic_plan");
      st.execute("PREPARE floor_claim AS " + numbered);
      try (ResultSet rs =
          st.executeQuery("EXPLAIN (FORMAT JSON) EXECUTE floor_claim(" + values + ")")) {
        rs.next();
        plan = rs.getString(1);
      }
    }
    c.rollback();
    LOG.info("generic plan of the pending claim: {}", plan);
    return plan;
  }

  /** The shared buffers (hit and read) a statement touches, from EXPLAIN (ANALYZE, BUFFERS). */
  private static long blocks(Connection c, String sql) throws Exception {
    JsonNode plan;
    try (Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) " + sql)) {
      rs.next();
      plan = JSON.readTree(rs.getString(1)).get(0).get("Plan");
    }
    c.rollback();
    return plan.path("Shared Hit Blocks").asLong() + plan.path("Shared Read Blocks").asLong();
  }
}
