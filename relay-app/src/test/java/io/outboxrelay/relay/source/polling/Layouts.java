package io.outboxrelay.relay.source.polling;

import io.outboxrelay.relay.config.Ordering;
import io.outboxrelay.relay.config.Sources;
import io.outboxrelay.relay.source.OutboxColumns;
import io.outboxrelay.relay.source.RowLayout;
import io.outboxrelay.relay.source.SqlDialect;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
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

  /**
   * A store on {@code outbox_events} with aggregate ordering, DEAD rows blocking, and a floor check
   * of its own that a test runs by hand ({@link #floorCheck}).
   */
  static OutboxStore store(Connection c, SqlDialect dialect) throws SQLException {
    return store(c, dialect, floorCheck());
  }

  /** A store as {@link #store(Connection, SqlDialect)}, sharing a floor check. */
  static OutboxStore store(Connection c, SqlDialect dialect, FloorCheck check) throws SQLException {
    return new OutboxStore(
        c, "outbox_events", Ordering.AGGREGATE, true, defaults(dialect, false), check);
  }

  /**
   * A floor check that runs only when a test calls {@link FloorCheck#check}, and is not stale for a
   * day.
   */
  static FloorCheck floorCheck() {
    return floorCheck(Duration.ofDays(1), Duration.ofDays(1));
  }

  /**
   * A floor check that runs only when a test calls {@link FloorCheck#check}.
   *
   * @param period how often a stale check's sweeps read from the first row themselves
   * @param stale how long without a check before it is stale
   */
  static FloorCheck floorCheck(Duration period, Duration stale) {
    return new FloorCheck(
        "test",
        () -> {
          throw new SQLException("a test's floor check runs on the store the test gives it");
        },
        period,
        stale);
  }
}
