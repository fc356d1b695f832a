package io.outboxrelay.relay.source.polling;

import static org.assertj.core.api.Assertions.assertThat;

import io.outboxrelay.relay.config.Ordering;
import io.outboxrelay.relay.source.SqlDialect;
import io.outboxrelay.relay.source.polling.OutboxStore.Failure.Kind;
import org.junit.jupiter.api.Test;

/**
 * The polling statements as each database gets them; their plans and effects are covered against
 * real databases by ClaimQueryPlanIT and the polling contract tests.
 */
class OutboxStatementsTest {

  private static OutboxStatements statements(SqlDialect dialect, boolean deadBlocks) {
    return OutboxStatements.of(dialect, "outbox_events", Ordering.AGGREGATE, deadBlocks, true);
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
}
