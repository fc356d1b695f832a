package io.outboxrelay.relay.source.polling;

import io.outboxrelay.relay.config.Ordering;
import io.outboxrelay.relay.config.Sources;
import io.outboxrelay.relay.source.OutboxColumns;
import io.outboxrelay.relay.source.RowLayout;
import io.outboxrelay.relay.source.SqlDialect;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.LinkedHashMap;
import java.util.Map;

/** The relay's own table layout, and a store on it, for tests of the statements and the store. */
final class Layouts {

  private Layouts() {}

  /**
   * The layout of the shipped outbox table: no headers or trace context column, placed columns.
   *
   * @param versions whether the table has {@code aggregate_version}
   */
  static RowLayout defaults(SqlDialect dialect, boolean versions) {
    Map<String, OutboxColumns.Column> table = new LinkedHashMap<>();
    if (versions) {
      table.put("aggregate_version", new OutboxColumns.Column("aggregate_version", "bigint", ""));
    }
    return RowLayout.of(Sources.of(dialect.flavor()), table);
  }

  /** A store on {@code outbox_events} with aggregate ordering, DEAD rows blocking. */
  static OutboxStore store(Connection c, SqlDialect dialect) throws SQLException {
    return new OutboxStore(c, "outbox_events", Ordering.AGGREGATE, true, defaults(dialect, false));
  }
}
