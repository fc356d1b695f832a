package io.outboxrelay.idempotency;

import io.outboxrelay.router.Dialect;
import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One retention run: fixes a cutoff on the database clock, then deletes older rows of one consumer
 * group in batches, each batch its own transaction, until a batch comes back short. Not
 * thread-safe; one instance per run.
 */
final class Retention {

  private static final Logger LOG = LoggerFactory.getLogger(Retention.class);

  private final Sql sql;
  private final String consumerGroup;
  private final int batchSize;
  private final String logPrefix;

  Retention(Sql sql, String consumerGroup, int batchSize, String logPrefix) {
    this.sql = sql;
    this.consumerGroup = consumerGroup;
    this.batchSize = batchSize;
    this.logPrefix = logPrefix;
  }

  PurgeResult purge(Connection connection, Duration age) throws SQLException {
    long micros;
    try {
      micros = age.toNanos() / 1_000;
    } catch (ArithmeticException e) {
      throw new IllegalArgumentException("age is too large: " + age, e);
    }
    long begin = System.nanoTime();
    boolean autoCommit = connection.getAutoCommit();
    connection.setAutoCommit(false);
    try {
      Object cutoffValue;
      Instant cutoff;
      try (PreparedStatement select = connection.prepareStatement(sql.cutoff())) {
        select.setLong(1, micros);
        try (ResultSet row = select.executeQuery()) {
          row.next();
          // Bound back as read, without a time-zone conversion in the JVM.
          cutoffValue =
              sql.dialect() == Dialect.MYSQL
                  ? row.getObject(1, LocalDateTime.class)
                  : row.getObject(1, OffsetDateTime.class);
          cutoff = epochSeconds(row.getBigDecimal(2));
        }
      }
      connection.commit();
      long deleted = 0;
      int batches = 0;
      int last;
      do {
        last = deleteBatch(connection, cutoffValue);
        connection.commit();
        deleted += last;
        batches++;
      } while (last == batchSize);
      LOG.info(
          "{} deleted {} processed event ids recorded before {} in {} batches ({} ms)",
          logPrefix,
          deleted,
          cutoff,
          batches,
          (System.nanoTime() - begin) / 1_000_000);
      return new PurgeResult(deleted, batches, cutoff);
    } catch (SQLException | RuntimeException e) {
      connection.rollback();
      throw e;
    } finally {
      connection.setAutoCommit(autoCommit);
    }
  }

  private int deleteBatch(Connection connection, Object cutoffValue) throws SQLException {
    try (PreparedStatement delete = connection.prepareStatement(sql.purgeBatch())) {
      int i = 1;
      delete.setString(i++, consumerGroup);
      if (sql.dialect() == Dialect.POSTGRESQL) {
        delete.setString(i++, consumerGroup);
      }
      delete.setObject(i++, cutoffValue);
      delete.setInt(i, batchSize);
      return delete.executeUpdate();
    }
  }

  private static Instant epochSeconds(BigDecimal seconds) {
    long whole = seconds.longValue();
    int nanos = seconds.subtract(BigDecimal.valueOf(whole)).movePointRight(9).intValue();
    return Instant.ofEpochSecond(whole, nanos);
  }
}
