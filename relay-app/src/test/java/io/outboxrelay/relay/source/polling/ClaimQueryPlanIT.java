package io.outboxrelay.relay.source.polling;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.outboxrelay.relay.source.SqlDialect;
import io.outboxrelay.testsupport.outbox.OutboxDatabase;
import io.outboxrelay.testsupport.outbox.SourceDatabase;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The claim queries on a table holding many PUBLISHED rows: they must neither scan the table nor
 * sort, and a claim must lock only what it claims (a locking read locks what it scans).
 */
class ClaimQueryPlanIT {

  private static final Logger LOG = LoggerFactory.getLogger(ClaimQueryPlanIT.class);
  private static final int PUBLISHED = 400_000;
  private static final int PENDING_AGGREGATES = 200;
  private static final int PENDING_PER_AGGREGATE = 10;
  private static final ObjectMapper JSON = new ObjectMapper();

  @Test
  void mariaDbClaimUsesTheIndexesWithoutFilesortAndLocksOnlyWhatItClaims() throws Exception {
    try (OutboxDatabase db = OutboxDatabase.forPolling()) {
      db.admin(
          "INSERT INTO outbox_events (event_id, aggregate_type, aggregate_id, event_type, payload,"
              + " status, published_at) SELECT UUID(), 'order', CONCAT('a-', seq MOD 5000),"
              + " 'Happened', '{}', 'PUBLISHED', NOW(6) FROM seq_1_to_"
              + PUBLISHED,
          "INSERT INTO outbox_events (event_id, aggregate_type, aggregate_id, event_type, payload)"
              + " SELECT UUID(), 'order', CONCAT('p-', seq MOD "
              + PENDING_AGGREGATES
              + "), 'Happened', '{}'"
              + " FROM seq_1_to_"
              + (PENDING_AGGREGATES * PENDING_PER_AGGREGATE),
          "ANALYZE TABLE outbox_events");
      try (Connection c = relayConnection(db)) {
        OutboxStore store = Layouts.store(c, SqlDialect.MYSQL);
        assertClaimsUseTheIndexes(c, store, sql -> mariaDbPlan(c, sql, PUBLISHED / 10));
        OutboxRetention retention = new OutboxRetention(c, SqlDialect.MYSQL, "outbox_events", "id");

        // Retention: a window of 1,000 PUBLISHED ids from (status, id), then a delete bounded by
        // them; every row is younger than an hour, so a sweep deletes none and stops at once.
        // (The window's estimate ignores its LIMIT, which ends the walk after 1,000 entries.)
        mariaDbPlan(c, bind(retention.windowEndSql(), 3_600_000_000L, 0, 999), Long.MAX_VALUE);
        mariaDbPlan(c, bind(retention.deleteSql(), 0, 1000, 3_600_000_000L), 5_000);
        assertRetentionStep(retention, db);

        // What a claim really locks: only the heads it returns, not the rows it looked at.
        c.setAutoCommit(false);
        c.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
        int returned = 0;
        long started = System.nanoTime();
        try (PreparedStatement ps = c.prepareStatement(store.pendingClaimSql())) {
          ps.setLong(1, 0);
          ps.setLong(2, Long.MAX_VALUE);
          ps.setInt(3, 100);
          try (ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
              returned++;
            }
          }
        }
        double ms = (System.nanoTime() - started) / 1e6;
        long connectionId;
        try (Statement st = c.createStatement();
            ResultSet rs = st.executeQuery("SELECT CONNECTION_ID()")) {
          rs.next();
          connectionId = rs.getLong(1);
        }
        // The relay user may not read INNODB_TRX (PROCESS privilege); the administrator may.
        long locked =
            ((Number)
                    db.adminQuery(
                        "SELECT trx_rows_locked FROM information_schema.INNODB_TRX WHERE"
                            + " trx_mysql_thread_id = "
                            + connectionId))
                .longValue();
        c.rollback();
        LOG.info(
            "claim returned {} heads in {} ms holding {} row locks",
            returned,
            String.format("%.1f", ms),
            locked);
        assertThat(returned).isEqualTo(100); // 200 aggregates have a head; the limit is 100
        assertThat(locked).isLessThanOrEqualTo(2L * returned);
      }
    }
  }

  @Test
  void postgresClaimReadsItsWindowInIndexOrderAndLocksByPrimaryKey() throws Exception {
    try (OutboxDatabase db = OutboxDatabase.postgres()) {
      db.admin(
          "INSERT INTO outbox_events (event_id, aggregate_type, aggregate_id, event_type, payload,"
              + " status, published_at) SELECT gen_random_uuid(), 'order', 'a-' || (g % 5000),"
              + " 'Happened', '{}', 'PUBLISHED', clock_timestamp() FROM generate_series(1, "
              + PUBLISHED
              + ") g",
          "INSERT INTO outbox_events (event_id, aggregate_type, aggregate_id, event_type, payload)"
              + " SELECT gen_random_uuid(), 'order', 'p-' || (g % "
              + PENDING_AGGREGATES
              + "), 'Happened', '{}'"
              + " FROM generate_series(1, "
              + (PENDING_AGGREGATES * PENDING_PER_AGGREGATE)
              + ") g",
          "ANALYZE outbox_events");
      try (Connection c = relayConnection(db)) {
        OutboxStore store = Layouts.store(c, SqlDialect.POSTGRESQL);
        // The claim reads a window of unsettled rows in id order, merging one range scan of
        // (status, id) per status, then locks the rows it chose by primary key; the DEAD check
        // reads the aggregate index.
        String window =
            postgresPlan(c, bind(store.unsettledWindowSql(), 0, 500, 0, 500, 0, 500, 500));
        assertThat(window)
            .contains("ix_outbox_events_status_id")
            .contains("Merge Append")
            .doesNotContain("Bitmap");
        String take =
            postgresPlan(
                c,
                store
                    .takeChosenSql()
                    .replace("ANY(?)", "ANY('{400001,400002,400003}'::bigint[])")
                    .replace("LIMIT ?", "LIMIT 2"));
        assertThat(take)
            .contains("outbox_events_pkey")
            .contains("ix_outbox_events_aggregate")
            .doesNotContain("Bitmap");
        OutboxRetention retention =
            new OutboxRetention(c, SqlDialect.POSTGRESQL, "outbox_events", "id");

        postgresPlan(
            c, bind(retention.windowEndSql().replace("secs => ?", "secs => 3600"), 0, 999));
        postgresPlan(c, bind(retention.deleteSql().replace("secs => ?", "secs => 3600"), 0, 1000));
        assertRetentionStep(retention, db);
      }
    }
  }

  /** A connection as the relay's user, auto-commit on. */
  private static Connection relayConnection(OutboxDatabase db) throws Exception {
    return DriverManager.getConnection(db.jdbcUrl(), db.relayUser(), db.password());
  }

  /** EXPLAINs a statement and checks its plan; returns the plan as JSON text. */
  @FunctionalInterface
  private interface Explain {
    String plan(String sql) throws Exception;
  }

  /**
   * The window-end and claim queries, over a window reaching the end of the pending rows
   * (unbounded) and one bounded by the window-end query (500 of the 2,000 pending rows): each plan
   * passes {@code explain}'s checks and reads through the status index, and a claim through the
   * aggregate index too.
   */
  private static void assertClaimsUseTheIndexes(Connection c, OutboxStore store, Explain explain)
      throws Exception {
    long windowEnd = windowEnd(c, store, 500);
    assertThat(windowEnd).isPositive();
    for (String sql :
        List.of(
            bind(store.windowEndSql(), 0, 499),
            bind(store.pendingClaimSql(), 0, Long.MAX_VALUE, 100),
            bind(store.pendingClaimSql(), 0, windowEnd, 100))) {
      String plan = explain.plan(sql);
      assertThat(plan).contains("ix_outbox_events_status_id");
      if (sql.contains("p.status")) {
        assertThat(plan).contains("ix_outbox_events_aggregate");
      }
    }
  }

  /**
   * EXPLAINs a statement on MariaDB and checks that no table access is a scan ({@code ALL} or a
   * whole {@code index}) or examines {@code maxRows} rows or more, and that nothing is filesorted.
   *
   * @return the plan as JSON text
   */
  private static String mariaDbPlan(Connection c, String sql, long maxRows) throws Exception {
    JsonNode plan = explain(c, "EXPLAIN FORMAT=JSON ", sql);
    assertThat(plan.toString())
        .doesNotContain("\"filesort\"")
        .doesNotContain("\"using_filesort\": true");
    List<JsonNode> tables = new ArrayList<>();
    tables(plan, tables);
    assertThat(tables).as("table accesses in %s", sql).isNotEmpty();
    for (JsonNode t : tables) {
      String name = t.path("table_name").asText();
      assertThat(t.path("access_type").asText())
          .as("access to %s in %s", name, sql)
          .isNotEqualTo("ALL")
          .isNotEqualTo("index");
      assertThat(t.path("rows").asLong())
          .as("rows examined in %s in %s", name, sql)
          .isLessThan(maxRows);
    }
    return plan.toString();
  }

  /**
   * EXPLAINs a statement on PostgreSQL and checks that no node is a sequential scan or a sort.
   *
   * @return the plan as JSON text
   */
  private static String postgresPlan(Connection c, String sql) throws Exception {
    JsonNode plan = explain(c, "EXPLAIN (FORMAT JSON) ", sql);
    List<JsonNode> nodes = new ArrayList<>();
    collect(plan, "Node Type", nodes);
    assertThat(nodes)
        .extracting(n -> n.path("Node Type").asText())
        .as("plan nodes of %s", sql)
        .isNotEmpty()
        .doesNotContain("Seq Scan", "Sort", "Incremental Sort");
    return plan.toString();
  }

  /** Runs {@code explain + sql}, rolls back and logs the JSON plan the database returns. */
  private static JsonNode explain(Connection c, String explain, String sql) throws Exception {
    JsonNode plan;
    try (Statement st = c.createStatement();
        ResultSet rs = st.executeQuery(explain + sql)) {
      rs.next();
      plan = JSON.readTree(rs.getString(1));
    }
    c.rollback();
    LOG.info("plan of {}: {}", sql, plan);
    return plan;
  }

  /**
   * One retention step over 1,000 PUBLISHED rows: none deleted (and the sweep ends) while they are
   * younger than the age; all of them, and the sweep goes on past them, once they are older.
   */
  private static void assertRetentionStep(OutboxRetention retention, SourceDatabase db)
      throws Exception {
    assertThat(retention.deleteOldPublished(0, Duration.ofHours(1), 1000))
        .isEqualTo(new OutboxRetention.RetentionStep(0, -1));
    OutboxRetention.RetentionStep step = retention.deleteOldPublished(0, Duration.ZERO, 1000);
    assertThat(step.deleted()).isEqualTo(1000);
    assertThat(step.next()).isPositive();
    assertThat(
            db.adminQuery(
                "SELECT COUNT(*) FROM outbox_events WHERE status = 'PUBLISHED' AND id <= "
                    + step.next()))
        .hasToString("0");
  }

  /** The last id of a window of {@code size} pending rows from the start, or -1 when shorter. */
  private static long windowEnd(Connection c, OutboxStore store, int size) throws Exception {
    try (PreparedStatement ps = c.prepareStatement(store.windowEndSql())) {
      ps.setLong(1, 0);
      ps.setInt(2, size - 1);
      try (ResultSet rs = ps.executeQuery()) {
        long end = rs.next() ? rs.getLong(1) : -1;
        c.rollback();
        return end;
      }
    }
  }

  /** The statement with its {@code ?} placeholders replaced by the values, for EXPLAIN. */
  private static String bind(String sql, long... values) {
    String bound = sql;
    for (long v : values) {
      bound = bound.replaceFirst("\\?", Long.toString(v));
    }
    assertThat(bound).doesNotContain("?");
    return bound;
  }

  /** Collects the table accesses of a MariaDB JSON plan: every {@code "table": {...}} object. */
  private static void tables(JsonNode node, List<JsonNode> into) {
    if (node.isObject() && node.path("table").isObject()) {
      into.add(node.get("table"));
    }
    node.forEach(child -> tables(child, into));
  }

  /** Collects every object node that has the given field. */
  private static void collect(JsonNode node, String field, List<JsonNode> into) {
    if (node.isObject() && node.has(field)) {
      into.add(node);
    }
    node.forEach(child -> collect(child, field, into));
  }
}
