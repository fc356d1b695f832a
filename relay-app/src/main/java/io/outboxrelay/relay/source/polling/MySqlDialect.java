package io.outboxrelay.relay.source.polling;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Collections;
import java.util.List;

/** MariaDB 10.6+ and MySQL 8.0+. */
final class MySqlDialect implements SqlDialect {

  @Override
  public String now() {
    return "NOW(6)";
  }

  @Override
  public String nowPlus() {
    return "(NOW(6) + INTERVAL ? MICROSECOND)";
  }

  @Override
  public String nowMinus() {
    return "(NOW(6) - INTERVAL ? MICROSECOND)";
  }

  @Override
  public void bindDuration(PreparedStatement ps, int index, Duration d) throws SQLException {
    ps.setLong(index, d.toNanos() / 1000);
  }

  @Override
  public String payloadText() {
    return "payload";
  }

  @Override
  public String eventIdText() {
    return "event_id";
  }

  @Override
  public String idIn(int count) {
    return "id IN (" + String.join(", ", Collections.nCopies(count, "?")) + ")";
  }

  @Override
  public int bindIds(Connection c, PreparedStatement ps, int index, List<Long> ids)
      throws SQLException {
    for (Long id : ids) {
      ps.setLong(index++, id);
    }
    return index;
  }

  @Override
  public void bindToken(PreparedStatement ps, int index, String token) throws SQLException {
    ps.setString(index, token);
  }

  @Override
  public String noClaimToken() {
    return "''";
  }

  @Override
  public String statusIdIndexHint() {
    return " FORCE INDEX (ix_outbox_events_status_id)";
  }

  @Override
  public String aggregateIndexHint() {
    return " FORCE INDEX (ix_outbox_events_aggregate)";
  }

  @Override
  public String forUpdateSkipLocked() {
    return "FOR UPDATE SKIP LOCKED";
  }

  @Override
  public void bindEventId(PreparedStatement ps, int index, String eventId) throws SQLException {
    ps.setString(index, eventId);
  }
}
