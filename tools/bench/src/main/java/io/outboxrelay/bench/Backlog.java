package io.outboxrelay.bench;

import io.outboxrelay.testsupport.outbox.RawOutboxInserts;
import io.outboxrelay.testsupport.outbox.SourceDatabase;
import io.outboxrelay.testsupport.outbox.TestEvent;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Writes a backlog of {@link BenchEvents} as fast as the database takes it. */
final class Backlog {

  private static final Logger LOG = LoggerFactory.getLogger(Backlog.class);
  private static final int PER_TRANSACTION = 1000;

  private Backlog() {}

  /**
   * Inserts {@code count} events numbered from {@code from}, 1,000 per transaction, as the
   * application user.
   *
   * @return the seconds it took
   */
  static double write(SourceDatabase db, long from, int count) throws SQLException {
    long start = System.nanoTime();
    try (Connection c = db.app()) {
      for (int written = 0; written < count; written += PER_TRANSACTION) {
        RawOutboxInserts.writeTransaction(
            c, BenchEvents.batch(from + written, Math.min(PER_TRANSACTION, count - written)));
      }
    }
    double seconds = (System.nanoTime() - start) / 1e9;
    LOG.info(
        "backlog of {} events written in {} s ({} /s)",
        count,
        String.format("%.1f", seconds),
        Math.round(count / seconds));
    return seconds;
  }

  /**
   * Inserts the given events in order, 1,000 per transaction, as the application user: the same
   * rows for every pipeline that is compared.
   *
   * @return the seconds it took
   */
  static double write(SourceDatabase db, List<TestEvent> events) throws SQLException {
    long start = System.nanoTime();
    try (Connection c = db.app()) {
      for (int i = 0; i < events.size(); i += PER_TRANSACTION) {
        RawOutboxInserts.writeTransaction(
            c, events.subList(i, Math.min(events.size(), i + PER_TRANSACTION)));
      }
    }
    double seconds = (System.nanoTime() - start) / 1e9;
    LOG.info("backlog of {} events written in {} s", events.size(), String.format("%.1f", seconds));
    return seconds;
  }

  /**
   * Inserts {@code count} events numbered from {@code from} in one transaction, as the application
   * user.
   *
   * @return the seconds it took
   */
  static double writeOneTransaction(SourceDatabase db, long from, int count) throws SQLException {
    long start = System.nanoTime();
    try (Connection c = db.app()) {
      RawOutboxInserts.writeTransaction(c, BenchEvents.batch(from, count));
    }
    double seconds = (System.nanoTime() - start) / 1e9;
    LOG.info("one transaction of {} events written in {} s", count, String.format("%.1f", seconds));
    return seconds;
  }
}
