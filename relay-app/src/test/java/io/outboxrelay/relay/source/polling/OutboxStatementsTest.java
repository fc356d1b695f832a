package io.outboxrelay.relay.source.polling;

import static org.assertj.core.api.Assertions.assertThat;

import io.outboxrelay.relay.config.Ordering;
import io.outboxrelay.relay.source.RowLayout;
import io.outboxrelay.relay.source.SqlDialect;
import io.outboxrelay.relay.source.polling.OutboxStore.Failure.Kind;
import org.junit.jupiter.api.Test;

/**
 * The polling statements as each database gets them; their plans and effects are covered against
 * real databases by ClaimQueryPlanIT and the polling contract tests.
 */
class OutboxStatementsTest {

  private static OutboxStatements statements(SqlDialect dialect, boolean deadBlocks) {
    return OutboxStatements.of(
        "outbox_events", Ordering.AGGREGATE, deadBlocks, Layouts.defaults(dialect, true));
  }

  @Test
  void claimsDuePendingHeadsOfAWindowWithTheIndexHintsOnMariaDb() {
    String claim = statements(SqlDialect.MYSQL, true).pendingClaim();

    assertThat(claim)
        .startsWith("SELECT e.id, e.event_id, e.aggregate_type, e.aggregate_id, e.event_type,")
        .contains("e.attempts, NOW(6), e.aggregate_version FROM outbox_events e FORCE INDEX")
        .contains("WHERE e.status = 'PENDING' AND e.id > ? AND e.id <= ?")
        .contains("AND e.next_attempt_at <= NOW(6)")
        .contains("FROM outbox_events p FORCE INDEX (ix_outbox_events_aggregate)")
        .contains("p.status = 'PROCESSING' AND p.id < e.id")
        .contains("p.status = 'DEAD' AND p.id < e.id")
        .endsWith("ORDER BY e.id LIMIT ? FOR UPDATE SKIP LOCKED");
  }

  @Test
  void claimsOnPostgresqlWithItsOwnTypesAndNoHints() {
    OutboxStatements sql = statements(SqlDialect.POSTGRESQL, false);

    assertThat(sql.pendingClaim())
        .contains("e.event_id::text")
        .contains("e.payload::text")
        .contains("clock_timestamp()")
        .doesNotContain("FORCE INDEX")
        .doesNotContain("p.status = 'DEAD'")
        .endsWith("FOR UPDATE OF e SKIP LOCKED");
    assertThat(sql.lease(3)).endsWith("WHERE id = ANY(?)");
    assertThat(sql.fail(Kind.RELEASE))
        .contains("attempts = attempts - 1")
        .contains("claim_token = NULL, processing_until = clock_timestamp()")
        .endsWith("WHERE id = ? AND claim_token = ?");
  }

  @Test
  void readsTheUnsettledRowsOfAWindowInIdOrderWithoutLocksOnPostgresql() {
    OutboxStatements sql = statements(SqlDialect.POSTGRESQL, true);

    assertThat(sql.unsettledWindow())
        .startsWith("SELECT w.id, w.aggregate_type, w.aggregate_id, w.leased, w.due FROM (")
        .contains(
            "e.next_attempt_at <= clock_timestamp() AS due FROM outbox_events e WHERE e.status ="
                + " 'PENDING' AND e.id > ? ORDER BY e.id LIMIT ?)")
        .contains(
            "e.processing_until < clock_timestamp() AS due FROM outbox_events e WHERE e.status ="
                + " 'PROCESSING' AND e.id > ? ORDER BY e.id LIMIT ?)")
        .contains("AS due FROM outbox_events e WHERE e.status = 'DEAD' AND e.id > ?")
        .endsWith(") w ORDER BY w.id LIMIT ?")
        .doesNotContain("FOR UPDATE")
        .doesNotContain("EXISTS");
  }

  @Test
  void locksOnlyTheChosenRowsThatAreStillDue() {
    OutboxStatements sql = statements(SqlDialect.POSTGRESQL, true);

    assertThat(sql.takeChosen())
        .contains("WHERE e.id = ANY(?) AND ((e.status = 'PENDING' AND e.next_attempt_at <=")
        .contains("(e.status = 'PROCESSING' AND e.processing_until < clock_timestamp()))")
        .contains("p.status = 'DEAD' AND p.id < e.id")
        .doesNotContain("p.status = 'PENDING'")
        .endsWith("ORDER BY e.id LIMIT ? FOR UPDATE OF e SKIP LOCKED");
    assertThat(statements(SqlDialect.POSTGRESQL, false).takeChosen())
        .doesNotContain("p.status = 'DEAD'");
    assertThat(statements(SqlDialect.POSTGRESQL, false).unsettledWindow()).doesNotContain("'DEAD'");
  }

  @Test
  void fencesEveryFinishByTheClaimToken() {
    OutboxStatements sql = statements(SqlDialect.MYSQL, true);

    assertThat(sql.markPublished(2))
        .contains("published_at = NOW(6), claim_token = '', processing_until = NOW(6)")
        .endsWith("WHERE id IN (?, ?) AND claim_token = ?");
    assertThat(sql.renew(1))
        .endsWith("WHERE id IN (?) AND claim_token = ? AND status = 'PROCESSING'");
    assertThat(sql.owned(1)).endsWith("AND claim_token = ? FOR UPDATE");
    for (Kind kind : Kind.values()) {
      assertThat(sql.fail(kind)).endsWith("WHERE id = ? AND claim_token = ?");
    }
    assertThat(sql.expiredClaim())
        .contains("WHERE e.status = 'PROCESSING' AND e.processing_until < NOW(6)")
        .contains("p.status = 'PENDING' AND p.id < e.id");
  }

  @Test
  void ordersByTheSequenceColumnAndComparesTheMappedAggregateColumnsOnDebeziumsTable() {
    io.outboxrelay.router.ColumnMapping debezium =
        new io.outboxrelay.router.ColumnMapping(
            "id",
            "aggregatetype",
            "aggregateid",
            "type",
            "payload",
            "aggregate_version",
            "headers",
            "tracingspancontext",
            io.outboxrelay.router.HeaderPlacement.parseList("timestamp:header:eventTimestamp"));
    io.outboxrelay.relay.config.SourceConfig source =
        io.outboxrelay.relay.config.Sources.mariaDb(debezium, "relay_seq", java.util.Set.of());
    java.util.Map<String, io.outboxrelay.relay.source.OutboxColumns.Column> table =
        new java.util.LinkedHashMap<>();
    for (String[] c :
        new String[][] {
          {"id", "char", "char(36)"},
          {"aggregatetype", "varchar", "varchar(255)"},
          {"aggregateid", "varchar", "varchar(255)"},
          {"type", "varchar", "varchar(255)"},
          {"timestamp", "timestamp", "timestamp(6)"},
          {"payload", "longtext", "longtext"},
          {"tracingspancontext", "varchar", "varchar(256)"},
          {"relay_seq", "bigint", "bigint(20) unsigned"}
        }) {
      table.put(c[0], new io.outboxrelay.relay.source.OutboxColumns.Column(c[0], c[1], c[2]));
    }
    OutboxStatements sql =
        OutboxStatements.of("outbox", Ordering.AGGREGATE, true, RowLayout.of(source, table));

    assertThat(sql.pendingClaim())
        .startsWith(
            "SELECT e.relay_seq, e.id, e.aggregatetype, e.aggregateid, e.type, e.payload,"
                + " e.created_at, e.attempts, NOW(6), e.tracingspancontext,"
                + " UNIX_TIMESTAMP(e.timestamp) FROM outbox e")
        .contains("WHERE e.status = 'PENDING' AND e.relay_seq > ? AND e.relay_seq <= ?")
        .contains(
            "WHERE p.aggregatetype = e.aggregatetype AND p.aggregateid = e.aggregateid"
                + " AND p.status = 'PENDING' ORDER BY p.relay_seq LIMIT 1")
        .contains("p.status = 'DEAD' AND p.relay_seq < e.relay_seq")
        .endsWith("ORDER BY e.relay_seq LIMIT ? FOR UPDATE SKIP LOCKED");
    assertThat(sql.windowEnd())
        .isEqualTo(
            "SELECT relay_seq FROM outbox FORCE INDEX (ix_outbox_events_status_id) WHERE status ="
                + " 'PENDING' AND relay_seq > ? ORDER BY relay_seq LIMIT 1 OFFSET ?");
    assertThat(sql.markPublished(2)).endsWith("WHERE relay_seq IN (?, ?) AND claim_token = ?");
    assertThat(sql.fail(Kind.DEAD)).endsWith("WHERE relay_seq = ? AND claim_token = ?");
  }
}
