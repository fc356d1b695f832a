package io.outboxrelay.relay.source.polling;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.UUID;

/** PostgreSQL 12+: {@code uuid}, {@code jsonb}, {@code timestamptz}. */
final class PostgresDialect implements SqlDialect {

  @Override
  public String now() {
    return "clock_timestamp()";
  }

  @Override
  public String nowPlus() {
    return "(clock_timestamp() + make_interval(secs => ?))";
  }

  @Override
  public String nowMinus() {
    return "(clock_timestamp() - make_interval(secs => ?))";
  }

  @Override
  public void bindDuration(PreparedStatement ps, int index, Duration d) throws SQLException {
    ps.setDouble(index, d.toNanos() / 1e9);
  }

  @Override
  public String payloadText() {
    return "payload::text";
  }

  @Override
  public String eventIdText() {
    return "event_id::text";
  }

  @Override
  public String idIn(int count) {
    return "id = ANY(?)";
  }

  @Override
  public int bindIds(Connection c, PreparedStatement ps, int index, List<Long> ids)
      throws SQLException {
    ps.setArray(index, c.createArrayOf("bigint", ids.toArray()));
    return index + 1;
  }

  @Override
  public void bindToken(PreparedStatement ps, int index, String token) throws SQLException {
    ps.setObject(index, UUID.fromString(token));
  }

  @Override
  public String noClaimToken() {
    return "NULL";
  }

  @Override
  public String statusIdIndexHint() {
    return ""; // the planner picks (status, id) by itself
  }

  @Override
  public String aggregateIndexHint() {
    return "";
  }

  @Override
  public String forUpdateSkipLocked() {
    return "FOR UPDATE OF e SKIP LOCKED";
  }

  @Override
  public void bindEventId(PreparedStatement ps, int index, String eventId) throws SQLException {
    ps.setObject(index, UUID.fromString(eventId));
  }
}
