package io.outboxrelay.idempotency;

import io.outboxrelay.router.Dialect;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.atomic.LongAdder;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The JDBC {@link IdempotentProcessor}. Thread-safe: no state but counters, the dialect and whether
 * the conflict check found its column.
 */
final class JdbcIdempotentProcessor implements IdempotentProcessor {

  private static final Logger LOG = LoggerFactory.getLogger(JdbcIdempotentProcessor.class);
  private static final int MAX_INSERT_ATTEMPTS = 5;

  private final DataSource dataSource;
  private final String consumerGroup;
  private final Dialect configuredDialect;
  private final String processedEventsTable;
  private final String aggregateVersionsTable;
  private final GapPolicy gapPolicy;
  private final boolean conflictCheck;
  private final int purgeBatchSize;
  private final String logPrefix;
  private final LongAdder processed = new LongAdder();
  private final LongAdder duplicates = new LongAdder();
  private final LongAdder stale = new LongAdder();
  private final LongAdder conflicts = new LongAdder();
  private final LongAdder failures = new LongAdder();
  private volatile Sql sql;
  private volatile boolean payloadHashColumnSeen;

  JdbcIdempotentProcessor(
      DataSource dataSource,
      String consumerGroup,
      Dialect dialect,
      String processedEventsTable,
      String aggregateVersionsTable,
      GapPolicy gapPolicy,
      boolean conflictCheck,
      int purgeBatchSize) {
    this.dataSource = dataSource;
    this.consumerGroup = consumerGroup;
    this.configuredDialect = dialect;
    this.processedEventsTable = processedEventsTable;
    this.aggregateVersionsTable = aggregateVersionsTable;
    this.gapPolicy = gapPolicy;
    this.conflictCheck = conflictCheck;
    this.purgeBatchSize = purgeBatchSize;
    this.logPrefix = "[idempotency group=" + consumerGroup + "]";
  }

  @Override
  public boolean checksConflicts() {
    return conflictCheck;
  }

  @Override
  public String consumerGroup() {
    return consumerGroup;
  }

  @Override
  public Outcome process(EventRef event, EventHandler handler) {
    Objects.requireNonNull(event, "event");
    Objects.requireNonNull(handler, "handler");
    Connection connection;
    try {
      connection = dataSource.getConnection();
    } catch (SQLException e) {
      failures.increment();
      throw new EventProcessingException(
          event.eventId(), "cannot get a connection to process event " + event.eventId(), e);
    }
    try {
      return inTransaction(connection, event, handler);
    } finally {
      closeQuietly(connection);
    }
  }

  @Override
  public Outcome admit(Connection connection, EventRef event) throws SQLException {
    Objects.requireNonNull(connection, "connection");
    Objects.requireNonNull(event, "event");
    if (connection.getAutoCommit()) {
      throw new IllegalStateException(
          "admitting event "
              + event.eventId()
              + " needs a connection in a transaction (auto-commit off), so that its id commits"
              + " with the business change; begin the transaction first");
    }
    Sql statements = statements(connection);
    return record(connection, statements, event, false);
  }

  /** The statements, once the conflict check's column is known to be there when it is on. */
  private Sql statements(Connection connection) throws SQLException {
    Sql statements = sql(connection);
    if (conflictCheck && !payloadHashColumnSeen) {
      // Looked for until found: the migration may run while the consumer is up.
      ConflictCheck.requireColumn(connection, statements, processedEventsTable);
      payloadHashColumnSeen = true;
    }
    return statements;
  }

  private Outcome inTransaction(Connection connection, EventRef event, EventHandler handler) {
    boolean restoreAutoCommit = false;
    try {
      Sql statements = statements(connection);
      if (connection.getAutoCommit()) {
        connection.setAutoCommit(false);
        restoreAutoCommit = true;
      }
      Outcome outcome = apply(connection, statements, event, handler);
      connection.commit();
      count(outcome);
      return outcome;
    } catch (Exception | Error failure) {
      rollbackQuietly(connection, event);
      failures.increment();
      throw rethrowable(event, failure);
    } finally {
      if (restoreAutoCommit) {
        try {
          connection.setAutoCommit(true);
        } catch (SQLException e) {
          LOG.warn("{} cannot turn auto-commit back on: {}", logPrefix, e.toString());
        }
      }
    }
  }

  private Outcome apply(Connection connection, Sql statements, EventRef event, EventHandler handler)
      throws Exception {
    Outcome recorded = record(connection, statements, event, true);
    if (recorded != Outcome.PROCESSED) {
      return recorded;
    }
    handler.handle(TransactionGuard.guard(connection));
    if (connection.getAutoCommit()) {
      throw new IllegalStateException(
          "the handler of event "
              + event.eventId()
              + " turned auto-commit on, which committed its transaction early; an event"
              + " handler must leave the transaction to the processor");
    }
    return Outcome.PROCESSED;
  }

  /**
   * Records the event id and runs the version check: {@link Outcome#PROCESSED} if the event is to
   * be applied now, else why not.
   *
   * @param retryDeadlocks whether a deadlock on the id's insert may roll back and insert again,
   *     which only the owner of the transaction may do
   */
  private Outcome record(
      Connection connection, Sql statements, EventRef event, boolean retryDeadlocks)
      throws SQLException {
    int inserted = insertEventId(connection, statements, event, retryDeadlocks);
    if (inserted == 0) {
      return duplicateOrConflict(connection, statements, event);
    }
    if (inserted != 1) {
      throw new IllegalStateException(
          "recording event " + event.eventId() + " changed " + inserted + " rows, expected 1");
    }
    AggregateVersion version = event.aggregateVersion();
    if (gapPolicy != null
        && version != null
        && !VersionCheck.admit(
            connection, statements, consumerGroup, event.eventId(), version, gapPolicy)) {
      LOG.debug("{} event {} is stale: skipped", logPrefix, event.eventId());
      return Outcome.STALE;
    }
    return Outcome.PROCESSED;
  }

  /**
   * The outcome of an event whose id was already recorded: {@link Outcome#CONFLICT} if the conflict
   * check is on and the recorded payload hash and the event's differ, else a duplicate.
   */
  private Outcome duplicateOrConflict(Connection connection, Sql statements, EventRef event)
      throws SQLException {
    if (conflictCheck && event.payloadHash() != null) {
      String recorded =
          ConflictCheck.recordedHash(connection, statements, consumerGroup, event.eventId());
      if (recorded != null && !recorded.equals(event.payloadHash())) {
        LOG.warn(
            "{} event {} was already processed with another payload (SHA-256 {} recorded, {}"
                + " now): two events were given this id; the handler did not run. Every event"
                + " needs an id of its own: fix the producer",
            logPrefix,
            event.eventId(),
            recorded,
            event.payloadHash());
        return Outcome.CONFLICT;
      }
    }
    LOG.debug("{} event {} already processed: skipped", logPrefix, event.eventId());
    return Outcome.DUPLICATE;
  }

  /**
   * Inserts the event id, the first statement of the transaction. When three or more deliveries of
   * one event wait on its key and the first rolls back, InnoDB lets the waiters take shared locks
   * and then picks deadlock victims among them (PostgreSQL does not). Nothing else has happened in
   * the transaction yet, so the insert is simply tried again in a new one; in a transaction of the
   * caller's ({@code retryDeadlocks} false) the deadlock is thrown, for the caller to retry.
   */
  private int insertEventId(
      Connection connection, Sql statements, EventRef event, boolean retryDeadlocks)
      throws SQLException {
    String eventId = event.eventId();
    String statement =
        conflictCheck ? statements.insertProcessedWithHash() : statements.insertProcessed();
    for (int attempt = 1; ; attempt++) {
      try (PreparedStatement insert = connection.prepareStatement(statement)) {
        insert.setString(1, consumerGroup);
        insert.setString(2, eventId);
        if (conflictCheck) {
          byte[] hash = ConflictCheck.toBytes(event.payloadHash());
          if (hash == null) {
            insert.setNull(3, Types.VARBINARY);
          } else {
            insert.setBytes(3, hash);
          }
        }
        return insert.executeUpdate();
      } catch (SQLException e) {
        if (!retryDeadlocks
            || attempt >= MAX_INSERT_ATTEMPTS
            || !isDeadlockOrSerializationFailure(e)) {
          throw e;
        }
        LOG.debug("{} recording event {} was a deadlock victim, again", logPrefix, eventId);
        connection.rollback();
      }
    }
  }

  /** SQLSTATE 40001 (MariaDB/MySQL deadlock 1213, serialization failure) or 40P01 (deadlock). */
  private static boolean isDeadlockOrSerializationFailure(SQLException e) {
    return "40001".equals(e.getSQLState()) || "40P01".equals(e.getSQLState());
  }

  @Override
  public PurgeResult purgeOlderThan(Duration age) throws SQLException {
    Objects.requireNonNull(age, "age");
    if (age.isNegative() || age.isZero()) {
      throw new IllegalArgumentException("age must be positive, got " + age);
    }
    try (Connection connection = dataSource.getConnection()) {
      return new Retention(sql(connection), consumerGroup, purgeBatchSize, logPrefix)
          .purge(connection, age);
    }
  }

  @Override
  public Counters counters() {
    return new Counters(
        processed.sum(), duplicates.sum(), stale.sum(), conflicts.sum(), failures.sum(), 0);
  }

  private Sql sql(Connection connection) throws SQLException {
    Sql current = sql;
    if (current == null) {
      Dialect dialect = configuredDialect;
      if (dialect == null) {
        dialect = Dialect.fromProductName(connection.getMetaData().getDatabaseProductName());
      }
      current = Sql.of(dialect, processedEventsTable, aggregateVersionsTable);
      sql = current;
      LOG.info(
          "{} dialect {}, tables {} and {}, version check {}, conflict check {}",
          logPrefix,
          dialect,
          processedEventsTable,
          aggregateVersionsTable,
          gapPolicy == null ? "off" : "on (gaps: " + gapPolicy + ")",
          conflictCheck ? "on" : "off");
    }
    return current;
  }

  private void count(Outcome outcome) {
    switch (outcome) {
      case PROCESSED -> processed.increment();
      case DUPLICATE -> duplicates.increment();
      case STALE -> stale.increment();
      case CONFLICT -> conflicts.increment();
    }
  }

  private static RuntimeException rethrowable(EventRef event, Throwable failure) {
    if (failure instanceof Error error) {
      throw error;
    }
    if (failure instanceof RuntimeException unchecked) {
      return unchecked;
    }
    if (failure instanceof InterruptedException) {
      Thread.currentThread().interrupt();
    }
    return new EventProcessingException(
        event.eventId(),
        "processing event " + event.eventId() + " failed and was rolled back: " + failure,
        failure);
  }

  private void rollbackQuietly(Connection connection, EventRef event) {
    try {
      connection.rollback();
    } catch (SQLException | RuntimeException e) {
      // The connection is likely broken; closing it discards the transaction on the server.
      LOG.warn("{} rollback of event {} failed: {}", logPrefix, event.eventId(), e.toString());
    }
  }

  private void closeQuietly(Connection connection) {
    try {
      connection.close();
    } catch (SQLException e) {
      LOG.warn("{} closing a connection failed: {}", logPrefix, e.toString());
    }
  }
}
